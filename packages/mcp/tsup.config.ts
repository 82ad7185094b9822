import { defineConfig } from 'tsup';
import { agentmemPreset, binPreset } from '../../tsup.config';

export default defineConfig([agentmemPreset({ index: 'src/index.ts' }), binPreset('src/bin.ts')]);
