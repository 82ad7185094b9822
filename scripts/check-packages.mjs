#!/usr/bin/env node
// `npm run check:packages`: publint --strict and @arethetypeswrong/cli on every workspace package,
// as published (both pack the package). Needs `npm run build` first. Exit 1 names each failing package.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root, workspaces } from './workspaces.mjs';

const bin = (name) => join(root, 'node_modules', '.bin', name);
const failures = [];
for (const pkg of workspaces()) {
  const checks = [
    ['publint', [bin('publint'), '--strict', pkg.dir]],
    ['attw', [bin('attw'), '--pack', pkg.dir, '--format', 'ascii']],
  ];
  for (const [check, [command, ...args]] of checks) {
    const run = spawnSync(command, args, { encoding: 'utf8', cwd: pkg.dir });
    const output = `${run.stdout}${run.stderr}`;
    // publint reports warnings and suggestions with exit 0 unless --strict; attw exits 1 on any problem.
    const clean = run.status === 0 && (check !== 'publint' || /All good!/.test(output));
    console.log(`${clean ? 'ok  ' : 'FAIL'} ${pkg.name}: ${check}`);
    if (!clean) {
      failures.push(`${pkg.name}: ${check}`);
      console.log(output.trim().replace(/^/gm, '     '));
    }
  }
}
if (failures.length > 0) {
  console.error(`\ncheck:packages failed for ${failures.length} check(s):\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('\ncheck:packages: publint and attw clean for every package.');
