import { readFileSync } from 'node:fs';
import type { Plugin } from 'esbuild';
import { defineConfig } from 'tsup';
import { agentmemPreset } from '../../tsup.config';

/** The subpath entries and the optional peer each needs (the peer modules re-export what the entry uses). */
const PEERS: Record<string, { file: string; entry: string }> = {
  langchain: { file: 'src/middleware/langchain-peer.ts', entry: '@agentmem/langchain/middleware' },
  '@langchain/langgraph-checkpoint': { file: 'src/store/langgraph-peer.ts', entry: '@agentmem/langchain/store' },
};

/**
 * Replaces each `*-peer.ts` module by one that loads the optional peer itself: when it is missing, importing
 * the entry fails with MISSING_DEPENDENCY naming the package to install, not Node's ERR_MODULE_NOT_FOUND.
 * ESM loads it with a top-level `await import()` (a static import would fail before any of our code runs),
 * CommonJS with `require`.
 */
const FORMAT = '__AGENTMEM_OUTPUT_FORMAT__';

function optionalPeers(): Plugin {
  return {
    name: 'agentmem-optional-peers',
    setup(build) {
      // tsup runs one esbuild build per format (ESM, then treeshaken by rollup for CommonJS too): it is read
      // from the define set below, not from esbuild's own format.
      const format = build.initialOptions.define?.[FORMAT] === '"cjs"' ? 'cjs' : 'esm';
      build.onLoad({ filter: /-peer\.ts$/ }, (args) => {
        const [specifier, peer] =
          Object.entries(PEERS).find(([, p]) => args.path.endsWith(p.file.slice('src'.length))) ?? [];
        if (!specifier || !peer) return undefined;
        const names = /export \{([^}]+)\} from '([^']+)'/.exec(readFileSync(args.path, 'utf8'));
        if (!names || names[2] !== specifier)
          throw new Error(`${peer.file}: expected "export { … } from '${specifier}'"`);
        const exported = names[1]!
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean);
        const message = `${peer.entry} needs the optional peer dependency ${specifier}: run \`npm i ${specifier}\`.`;
        const missing = `(error) => {
  const code = error && error.code;
  if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String(error.message).includes(${JSON.stringify(`'${specifier}'`)})) {
    return new AgentMemoryError('MISSING_DEPENDENCY', ${JSON.stringify(message)}, { cause: error });
  }
  return error;
}`;
        const load =
          format === 'esm' ? `await import(${JSON.stringify(specifier)})` : `require(${JSON.stringify(specifier)})`;
        const contents = `import { AgentMemoryError } from '@agentmem/core';
const missing = ${missing};
let peer;
try {
  peer = ${load};
} catch (error) {
  throw missing(error);
}
${exported.map((n) => `export const ${n} = peer.${n};`).join('\n')}
`;
        return { contents, loader: 'js', resolveDir: args.path.replace(/\/[^/]+$/, '') };
      });
    },
  };
}

export default defineConfig(
  agentmemPreset(
    {
      index: 'src/index.ts',
      'middleware/index': 'src/middleware/index.ts',
      'store/index': 'src/store/index.ts',
    },
    {
      esbuildPlugins: [optionalPeers()],
      esbuildOptions(options, context) {
        options.define = { ...options.define, [FORMAT]: JSON.stringify(context.format) };
      },
    },
  ),
);
