import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { agentmemPreset, binPreset } from '../../tsup.config';

export default defineConfig([
  agentmemPreset(
    { index: 'src/index.ts' },
    {
      // `agentmem demo` loads these when installed from npm (no checkout around it).
      onSuccess: async () => cpSync('../../examples/skills', 'dist/demo-skills', { recursive: true }),
    },
  ),
  binPreset('src/bin.ts'),
]);
