import { defineConfig, type Options } from 'tsup';

/**
 * The one build preset every package uses: ESM + CJS + d.ts + sourcemaps.
 * Each package's own `tsup.config.ts` calls this with its entry points.
 */
export function agentmemPreset(entry: Record<string, string>, extra: Partial<Options> = {}): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { paths: {}, baseUrl: '.' } },
    sourcemap: true,
    clean: true,
    target: 'node20',
    splitting: false,
    treeshake: true,
    outExtension: ({ format }) => ({ js: format === 'cjs' ? '.cjs' : '.js' }),
    ...extra,
  };
}

export default defineConfig(agentmemPreset({ index: 'src/index.ts' }));
