/** Writes the UI bundle next to the compiled server (dist/ui), which serves it as is. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleUi } from '../src/assets';

const out = fileURLToPath(new URL('../dist/ui/', import.meta.url));
const { js, css } = await bundleUi();
mkdirSync(out, { recursive: true });
writeFileSync(`${out}app.js`, js);
writeFileSync(`${out}app.css`, css);
console.log(
  `dist/ui/app.js ${(js.length / 1024).toFixed(0)} KiB, dist/ui/app.css ${(css.length / 1024).toFixed(0)} KiB`,
);
