import { defineConfig } from 'tsup';
import { agentmemPreset } from '../../tsup.config';

export default defineConfig(agentmemPreset({ index: 'src/index.ts' }));
