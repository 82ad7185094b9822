import { defineConfig } from 'tsup';
import { agentmemPreset } from '../../tsup.config';

// The testing entry imports core by its package name, left external: it shares the main entry's modules
// (one AgentMemoryError class, one MemoryStore) instead of bundling a second copy of core (~250 KB each format).
export default defineConfig(
  agentmemPreset(
    { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
    {
      external: ['@agentmem/core'],
      dts: { compilerOptions: { paths: { '@agentmem/core': ['./src/index.ts'] }, baseUrl: '.' } },
    },
  ),
);
