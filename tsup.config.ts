import { defineConfig, type Options } from 'tsup';

/**
 * The one build preset every package uses: ESM + CJS, each with its own
 * declarations (`.d.ts` for import, `.d.cts` for require), and source maps
 * without embedded sources (they map stack traces to `src/` paths; the
 * sources themselves are not shipped, which keeps tarballs small).
 * Each package's own `tsup.config.ts` calls this with its entry points.
 */
export function agentmemPreset(entry: Record<string, string>, extra: Partial<Options> = {}): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { paths: {}, baseUrl: '.' } },
    sourcemap: true,
    // The bin build below writes into the same folder at the same time: never clean its files.
    clean: ['!bin.js', '!bin.js.map'],
    target: 'node20',
    splitting: false,
    treeshake: true,
    outExtension: ({ format }) => ({ js: format === 'cjs' ? '.cjs' : '.js' }),
    esbuildOptions(options) {
      options.sourcesContent = false;
    },
    ...extra,
  };
}

/** An executable (`bin` in package.json): ESM only, no declarations, no CJS twin. */
export function binPreset(file: string): Options {
  return {
    entry: { bin: file },
    format: ['esm'],
    sourcemap: true,
    clean: false,
    target: 'node20',
    splitting: false,
    treeshake: true,
    esbuildOptions(options) {
      options.sourcesContent = false;
    },
  };
}

export default defineConfig(agentmemPreset({ index: 'src/index.ts' }));
