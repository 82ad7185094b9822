// After tsup: dist/index.d.cts imports @qdrant/js-client-rest, whose only `types` are ESM ("type": "module").
// A CommonJS TypeScript user (module node16) then gets TS1479 for our declarations. A type-only import with
// `resolution-mode: "import"` (TypeScript 5.3+) reads the client's ESM types from a CommonJS file.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../dist/index.d.cts', import.meta.url);
const text = readFileSync(file, 'utf8');
const client = /^import \{ ([\w, ]+) \} from '@qdrant\/js-client-rest';$/m;
if (!client.test(text)) {
  // Fail the build rather than ship the TS1479 again when tsup writes the import differently.
  throw new Error(`${file.pathname}: no "import { … } from '@qdrant/js-client-rest';" line to rewrite`);
}
writeFileSync(
  file,
  text.replace(client, "import type { $1 } from '@qdrant/js-client-rest' with { 'resolution-mode': 'import' };"),
);
