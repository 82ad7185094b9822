import { defineConfig } from 'tsup';
import { agentmemPreset } from '../../tsup.config';

// shims: import.meta.url in the CommonJS build (it locates dist/ui).
export default defineConfig(agentmemPreset({ index: 'src/index.ts' }, { shims: true }));
