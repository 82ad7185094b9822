import { defineConfig } from 'tsup';
import { agentmemPreset } from '../../tsup.config';

export default defineConfig(
  agentmemPreset({
    index: 'src/index.ts',
    'middleware/index': 'src/middleware/index.ts',
    'store/index': 'src/store/index.ts',
  }),
);
