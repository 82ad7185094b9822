import { defineConfig, type Options } from 'tsup';

/**
 * The one build preset every package uses: ESM + CJS, each with its own
 * declarations (`.d.ts` for import, `.d.cts` for require). No source maps: the
 * output is unminified ES2022 that reads like the sources, and maps would point
 * at `src/` files the packages do not ship (they were 2.2 of 5.1 MB unpacked).
 * Each package's own `tsup.config.ts` calls this with its entry points.
 */
export function agentmemPreset(entry: Record<string, string>, extra: Partial<Options> = {}): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { paths: {}, baseUrl: '.' } },
    sourcemap: false,
    // The bin build below writes into the same folder at the same time: never clean its file.
    clean: ['!bin.js'],
    target: 'node20',
    splitting: false,
    treeshake: true,
    outExtension: ({ format }) => ({ js: format === 'cjs' ? '.cjs' : '.js' }),
    ...extra,
  };
}

/** An executable (`bin` in package.json): ESM only, no declarations, no CJS twin. */
export function binPreset(file: string): Options {
  return {
    entry: { bin: file },
    format: ['esm'],
    sourcemap: false,
    clean: false,
    target: 'node20',
    splitting: false,
    treeshake: true,
  };
}

export default defineConfig(agentmemPreset({ index: 'src/index.ts' }));
