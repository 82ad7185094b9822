#!/usr/bin/env node
// `npm run test:consumer`: what a new user gets from npm. Builds, packs every workspace package, installs
// the tarballs into a temporary project with only the peers a user adds, then: ESM import and CJS require
// of every entry point, tsc (node16 and bundler, no skipLibCheck) on a file per package, and the bins.
// Every failure names the package and the step. `--keep` leaves the temporary project for inspection.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, workspaces } from './workspaces.mjs';

const keep = process.argv.includes('--keep');

/**
 * Type errors a TypeScript user meets through a dependency's own packaging, listed so that they are shown
 * rather than hidden: `{ package, mode, pattern, why }`. Remove an entry when the dependency fixes it. Empty:
 * @agentmem/qdrant's CommonJS declarations import @qdrant/js-client-rest's ESM-only types with
 * `resolution-mode: "import"` (packages/qdrant/scripts/cjs-types.mjs), so `module: node16` compiles them.
 */
const KNOWN_TYPE_PROBLEMS = [];
/** Subpath builds that must import their own package (file without extension → largest expected size). */
const SELF_IMPORTING = { '@agentmem/core': { 'dist/testing/index': 64 * 1024 } };
const skipBuild = process.argv.includes('--no-build');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const failures = [];
const started = process.cpuUsage();

/** Runs a step; a failure is recorded with the package and the step, and the output is shown. */
function step(pkg, name, command, args, options = {}) {
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  const ok = run.status === 0 && (!options.expect || options.expect(output));
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${pkg}: ${name}`);
  if (!ok) {
    failures.push(`${pkg}: ${name}`);
    console.log(output.trim().split('\n').slice(-40).join('\n').replace(/^/gm, '     '));
  }
  return { ok, output };
}

function finish() {
  const cpu = process.cpuUsage(started);
  console.log(
    `\n(consumer test process CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; child processes not included)`,
  );
  if (failures.length > 0) {
    console.error(`\nconsumer test failed (${failures.length}):\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
  console.log('\nconsumer test: every package installs, imports, requires, type-checks, and the bins run.');
}

const packages = workspaces();
if (!skipBuild && !step('workspace', 'build', npm, ['run', 'build'], { cwd: root }).ok) finish();

const work = mkdtempSync(join(tmpdir(), 'agentmem-consumer-'));
const tarballs = join(work, 'tarballs');
const app = join(work, 'app');
mkdirSync(tarballs);
mkdirSync(app);

// 1. Pack, and look inside each tarball.
const packed = [];
for (const pkg of packages) {
  const { ok, output } = step(pkg.name, 'npm pack', npm, ['pack', '--json', '--pack-destination', tarballs], {
    cwd: pkg.dir,
  });
  if (!ok) continue;
  const [info] = JSON.parse(output.slice(output.indexOf('[')));
  packed.push(join(tarballs, info.filename));
  const files = info.files.map((f) => f.path);
  const problems = [];
  for (const required of ['README.md', 'LICENSE', 'package.json']) {
    if (!files.includes(required)) problems.push(`no ${required}`);
  }
  const sources = files.filter((f) => /\.(ts|tsx)$/.test(f) && !/\.d\.c?ts$/.test(f));
  if (sources.length > 0) problems.push(`TypeScript sources: ${sources.join(', ')}`);
  for (const target of Object.values(pkg.manifest.bin ?? {})) {
    if (!files.includes(target)) problems.push(`bin ${target} missing`);
  }
  // No source maps: they pointed at src/, which is not shipped.
  const maps = files.filter((f) => f.endsWith('.map'));
  if (maps.length > 0) problems.push(`source maps: ${maps.join(', ')}`);
  for (const js of files.filter((f) => /\.c?js$/.test(f))) {
    if (readFileSync(join(pkg.dir, js), 'utf8').includes('//# sourceMappingURL='))
      problems.push(`${js} names a source map`);
  }
  // A subpath entry imports its own package instead of bundling a second copy of it.
  for (const [subpath, limit] of Object.entries(SELF_IMPORTING[pkg.name] ?? {})) {
    for (const [ext, self] of [
      ['js', `from '${pkg.name}'`],
      ['cjs', `require('${pkg.name}')`],
    ]) {
      const file = `${subpath}.${ext}`;
      const text = files.includes(file) ? readFileSync(join(pkg.dir, file), 'utf8') : '';
      if (!text.includes(self)) problems.push(`${file} does not import ${pkg.name} (${self})`);
      if (text.length > limit)
        problems.push(`${file} is ${text.length} bytes, over ${limit}: it bundles a copy of ${pkg.name}?`);
    }
  }
  console.log(`${problems.length === 0 ? 'ok  ' : 'FAIL'} ${pkg.name}: tarball contents (${files.length} files)`);
  if (problems.length > 0) failures.push(`${pkg.name}: tarball contents: ${problems.join('; ')}`);
}
if (packed.length !== packages.length) finish();

// 2. Install the tarballs plus the peers a user adds: ai + zod for the AI SDK, @langchain/core for LangChain.
// `langchain` (optional peer, for @agentmem/langchain/middleware and /store) comes later, so the main entries
// are proven to load without it.
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '0.0.0' }));
const userPeers = ['ai@^6', 'zod@^4', '@langchain/core@^1.4.0', '@types/node@^20'];
// Install scripts are skipped: the only one is better-sqlite3's native build, which compiles for minutes where its
// prebuilt binaries cannot be downloaded. The checkout's build is reused when the version matches, else it is rebuilt.
const install = (name, specs) =>
  step(
    'consumer',
    name,
    npm,
    ['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...specs],
    {
      cwd: app,
    },
  );
if (!install('npm install (tarballs + ai, zod, @langchain/core)', [...packed, ...userPeers]).ok) finish();
const native = (base) => join(base, 'node_modules', 'better-sqlite3');
const version = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
const built = join(native(root), 'build', 'Release', 'better_sqlite3.node');
if (existsSync(built) && version(native(root)) === version(native(app))) {
  cpSync(join(native(root), 'build'), join(native(app), 'build'), { recursive: true });
  console.log(`ok   consumer: better-sqlite3 ${version(native(app))} native build reused from the checkout`);
} else if (!step('consumer', 'npm rebuild better-sqlite3', npm, ['rebuild', 'better-sqlite3'], { cwd: app }).ok) {
  finish();
}

/** Every entry point of a package, from its exports map. */
const entries = (pkg) =>
  Object.keys(pkg.manifest.exports ?? { '.': {} })
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
const needsLangchain = (entry) => /^@agentmem\/langchain\/(middleware|store)$/.test(entry);

function loadEntries(filter, label) {
  for (const pkg of packages) {
    for (const entry of entries(pkg).filter(filter)) {
      const check = `if (Object.keys(m).length === 0) throw new Error('no exports');`;
      step(
        entry,
        `ESM import${label}`,
        process.execPath,
        ['--input-type=module', '-e', `import * as m from '${entry}'; ${check}`],
        { cwd: app },
      );
      step(entry, `CJS require${label}`, process.execPath, ['-e', `const m = require('${entry}'); ${check}`], {
        cwd: app,
      });
    }
  }
}

// 3. Runtime: every entry point that needs no optional peer; without its peer, each of the others fails
// with MISSING_DEPENDENCY naming the package to install (not Node's ERR_MODULE_NOT_FOUND); then with it.
loadEntries((entry) => !needsLangchain(entry), ' (without optional peers)');
const OPTIONAL_PEER_OF = {
  '@agentmem/langchain/middleware': 'langchain',
  '@agentmem/langchain/store': '@langchain/langgraph-checkpoint',
};
for (const [entry, peer] of Object.entries(OPTIONAL_PEER_OF)) {
  const expect = (out) =>
    out.includes('MISSING_DEPENDENCY') && out.includes(`npm i ${peer}`) && !out.includes('ERR_MODULE_NOT_FOUND');
  const report = `.catch((e) => { console.log(e.code, e.message); process.exit(e.code === 'MISSING_DEPENDENCY' ? 0 : 1); })`;
  step(
    entry,
    `ESM import without ${peer} names it`,
    process.execPath,
    ['--input-type=module', '-e', `await import('${entry}').then(() => process.exit(1))${report};`],
    { cwd: app, expect },
  );
  step(
    entry,
    `CJS require without ${peer} names it`,
    process.execPath,
    ['-e', `Promise.resolve().then(() => require('${entry}')).then(() => process.exit(1))${report};`],
    { cwd: app, expect },
  );
}
if (install('npm install langchain (optional peer)', ['langchain@^1.5.0']).ok) {
  loadEntries(needsLangchain, '');
}

// 4. Types: one file per package and module format, so an error's file names the package.
const src = join(app, 'src');
mkdirSync(src);
const slug = (entry) => entry.replace('@agentmem/', '').replace('/', '-');
for (const pkg of packages) {
  for (const entry of entries(pkg)) {
    const body = `import * as m from '${entry}';\nexport const names: string[] = Object.keys(m);\n`;
    writeFileSync(join(src, `${slug(entry)}.mts`), body);
    writeFileSync(join(src, `${slug(entry)}.cts`), body);
  }
}
// What the docs promise: the middleware in wrapLanguageModel without a cast.
writeFileSync(
  join(src, 'ai-sdk-usage.mts'),
  `import { agentMemoryMiddleware } from '@agentmem/ai-sdk';
import { createAgentMemory, InMemoryBackend } from '@agentmem/core';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
export async function wrap() {
  const memory = await createAgentMemory({ backend: new InMemoryBackend() });
  return wrapLanguageModel({ model: new MockLanguageModelV3(), middleware: agentMemoryMiddleware({ memory }) });
}
`,
);
const compilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: 'ES2022',
  lib: ['ES2023', 'DOM'],
  types: ['node'],
};
writeFileSync(
  join(app, 'tsconfig.node16.json'),
  JSON.stringify({
    compilerOptions: { ...compilerOptions, module: 'node16', moduleResolution: 'node16' },
    include: ['src'],
  }),
);
writeFileSync(
  join(app, 'tsconfig.bundler.json'),
  JSON.stringify({
    compilerOptions: { ...compilerOptions, module: 'esnext', moduleResolution: 'bundler' },
    include: ['src/*.mts'],
  }),
);
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
for (const mode of ['node16', 'bundler']) {
  const run = spawnSync(process.execPath, [tsc, '-p', `tsconfig.${mode}.json`], { cwd: app, encoding: 'utf8' });
  const errors = `${run.stdout}${run.stderr}`.trim();
  if (run.status === 0) {
    console.log(`ok   every package: tsc --moduleResolution ${mode}`);
    continue;
  }
  // One diagnostic per entry (with its indented continuation lines).
  const diagnostics = errors.split(/\n(?=\S)/);
  const ours = [];
  for (const diagnostic of diagnostics) {
    const known = KNOWN_TYPE_PROBLEMS.find((k) => k.mode === mode && k.pattern.test(diagnostic));
    if (known) console.log(`note ${known.package}: tsc ${mode}: known, not ours: ${known.why}`);
    else if (/^node_modules\/(?!@agentmem\/)/.test(diagnostic)) {
      console.log(`note tsc ${mode}: third-party declaration error: ${diagnostic.split('\n')[0]}`);
    } else ours.push(diagnostic);
  }
  if (ours.length === 0) {
    console.log(`ok   every package: tsc --moduleResolution ${mode} (only third-party notes above)`);
    continue;
  }
  // Name the packages: errors in src/<package>.<ext> or in node_modules/@agentmem/<package>/.
  const names = new Set(
    ours.flatMap((d) =>
      [...d.matchAll(/^(?:src\/([\w-]+)\.[cm]ts|node_modules\/@agentmem\/([\w-]+)\/)/gm)].map(
        (m) => `@agentmem/${m[1] ?? m[2]}`,
      ),
    ),
  );
  for (const name of names) failures.push(`${name}: tsc ${mode}`);
  console.log(`FAIL ${[...names].join(', ')}: tsc --moduleResolution ${mode}`);
  console.log(ours.join('\n').split('\n').slice(0, 40).join('\n').replace(/^/gm, '     '));
}

// 5. The bins, as `npx` runs them from the project.
const bin = (name) => join(app, 'node_modules', '.bin', name);
step('@agentmem/cli', 'npx agentmem --help', bin('agentmem'), ['--help'], {
  cwd: app,
  expect: (out) => /Usage: agentmem/.test(out),
});
step('@agentmem/cli', 'npx agentmem demo (with its skills)', bin('agentmem'), ['demo'], {
  cwd: app,
  expect: (out) => /Loaded [1-9]\d* skills/.test(out) && !/not found/.test(out),
});
step('@agentmem/mcp', 'npx agentmem-mcp --help', bin('agentmem-mcp'), ['--help'], {
  cwd: app,
  expect: (out) => /agentmem-mcp/.test(out),
});

// 6. The inspector from its tarball: its server starts (ESM and CJS: the CJS build finds dist/ui through the
// import.meta.url shim) and serves the prebuilt UI bundle (esbuild, which could rebuild it, is not installed here),
// then `agentmem inspect` loads it through the CLI's optional import and stops on Ctrl-C.
/** Fetches the page and the UI bundle of a running inspector at `url`; throws what is wrong. */
const inspectorFetch = `async function fetchInspector(url) {
  // As the page does: the token from the printed URL goes in the Authorization header of every API request.
  const token = new URL(url).searchParams.get('token');
  if (!token) throw new Error('no token in the printed URL ' + url);
  const page = await fetch(url);
  const html = await page.text();
  if (page.status !== 200 || !html.includes('/assets/app.js')) throw new Error('page: HTTP ' + page.status + ' ' + html.slice(0, 200));
  for (const asset of ['app.js', 'app.css']) {
    const res = await fetch(new URL('/assets/' + asset, url));
    const body = await res.text();
    if (res.status !== 200 || body.length < 1000) throw new Error(asset + ': HTTP ' + res.status + ' ' + body.slice(0, 200));
  }
  const api = new URL('/api/session', url);
  const refused = await fetch(api);
  if (refused.status !== 401) throw new Error('/api/session without the token: HTTP ' + refused.status + ', expected 401');
  const session = await fetch(api, { headers: { authorization: 'Bearer ' + token } });
  const body = await session.json();
  if (session.status !== 200 || typeof body.csrf !== 'string') throw new Error('/api/session: HTTP ' + session.status);
}`;
const startAndFetch = `const memory = await createAgentMemory({ backend: new InMemoryBackend() });
  const inspector = await startInspector({ memory });
  try { await fetchInspector(inspector.url); } finally { await inspector.close(); await memory.close(); }`;
writeFileSync(
  join(app, 'inspector-start.mjs'),
  `import { createAgentMemory, InMemoryBackend } from '@agentmem/core';
import { startInspector } from '@agentmem/inspector';
${inspectorFetch}
${startAndFetch}
`,
);
writeFileSync(
  join(app, 'inspector-start.cjs'),
  `const { createAgentMemory, InMemoryBackend } = require('@agentmem/core');
const { startInspector } = require('@agentmem/inspector');
${inspectorFetch}
(async () => {
  ${startAndFetch}
})().catch((error) => { console.error(error); process.exit(1); });
`,
);
writeFileSync(
  join(app, 'inspector-cli.mjs'),
  `import { spawn } from 'node:child_process';
${inspectorFetch}
const [bin, db] = process.argv.slice(2);
const child = spawn(bin, ['inspect', '--db', db, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
let out = '';
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no URL within 120 s: ' + out)), 120_000);
  child.stdout.on('data', (chunk) => {
    out += chunk;
    const match = out.match(/"url":\\s*"([^"]+)"/);
    if (match) { clearTimeout(timer); resolve(match[1]); }
  });
  exited.then((code) => reject(new Error('exited (' + code + ') before printing its URL: ' + out)));
});
try { await fetchInspector(url); } finally { child.kill('SIGINT'); }
const code = await exited;
if (code !== 0) throw new Error('agentmem inspect exited ' + code + ' on SIGINT');
console.log('agentmem inspect served ' + url.replace(/token=.*/, 'token=…') + ' and stopped on SIGINT');
`,
);
for (const file of ['inspector-start.mjs', 'inspector-start.cjs']) {
  step(
    '@agentmem/inspector',
    `startInspector serves the prebuilt UI (${file.slice(-3).toUpperCase()})`,
    process.execPath,
    [file],
    {
      cwd: app,
    },
  );
}
const inspectDb = join(app, 'inspect.db');
if (
  step(
    '@agentmem/cli',
    'npx agentmem remember (a store to inspect)',
    bin('agentmem'),
    ['remember', 'The staging database is PostgreSQL 16', '--type', 'project', '--db', inspectDb],
    { cwd: app },
  ).ok
) {
  step(
    '@agentmem/inspector',
    'npx agentmem inspect (serves, stops on SIGINT)',
    process.execPath,
    ['inspector-cli.mjs', bin('agentmem'), inspectDb],
    { cwd: app },
  );
}

if (keep) console.log(`\nkept: ${work}`);
else rmSync(work, { recursive: true, force: true });
finish();
