#!/usr/bin/env node
// `npm run test:postgres`: the real-server suite (vitest.postgres.config.ts) against a real PostgreSQL with pgvector.
//
//   DATABASE_URL set       -> runs against it (a store per schema agentmem_t_*, dropped afterwards)
//   else ../shared/postgres/start.sh beside the checkout -> starts a throwaway server, runs, always stops it
//   else                   -> says how to get a server and exits 1
//
// The restart tests crash a server (immediate stop) and start it again: they get a second server of their own,
// started the same way (or yours: AGENTMEM_PG_CRASH_URL plus AGENTMEM_PG_DOWN / AGENTMEM_PG_UP shell commands).
// A skipped test fails the run: this suite exists to prove the backend on a real server, so every test must run.
// Extra arguments go to vitest (e.g. a file filter).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = resolve(root, '..', 'shared', 'postgres');
const startScript = join(shared, 'start.sh');
const env = { ...process.env };
/** PGDATA_DIRs of the servers this run started: stopped and removed on every way out. */
const started = [];

function stopServers() {
  for (const dir of started.splice(0)) {
    spawnSync('bash', [join(shared, 'stop.sh'), dir], { stdio: 'ignore' });
    process.stderr.write(`test:postgres: stopped the throwaway server in ${dir}\n`);
  }
}
process.on('exit', stopServers);

/** Runs start.sh; resolves to the variables it prints (DATABASE_URL, PGDATA_DIR). */
function startServer() {
  return new Promise((done, reject) => {
    const run = spawn('bash', [startScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    run.stdout.on('data', (chunk) => (out += chunk));
    run.on('error', reject);
    run.on('close', (status) => {
      const vars = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
      if (vars.PGDATA_DIR) started.push(vars.PGDATA_DIR);
      if (status !== 0 || !vars.DATABASE_URL || !vars.PGDATA_DIR) {
        reject(new Error(`${startScript} failed (exit ${status}); see its output above.`));
      } else done(vars);
    });
  });
}

function fail(message) {
  process.stderr.write(`test:postgres: ${message}\n`);
  process.exit(1);
}

let child;
let interrupted;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    interrupted = 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal] ?? 1);
    // Ctrl-C reaches vitest too (same process group), a TERM may not: pass it on; the servers are stopped once it is gone.
    if (child) child.kill(signal);
    else process.exit(interrupted);
  });
}

const t0 = Date.now();
try {
  const haveCrash = env.AGENTMEM_PG_CRASH_URL && env.AGENTMEM_PG_DOWN && env.AGENTMEM_PG_UP;
  if (!env.DATABASE_URL || !haveCrash) {
    if (!existsSync(startScript)) {
      fail(
        [
          env.DATABASE_URL
            ? 'the restart tests need a server they may crash: set AGENTMEM_PG_CRASH_URL and the shell commands AGENTMEM_PG_DOWN / AGENTMEM_PG_UP (docs/postgres.md).'
            : 'no server: set DATABASE_URL to a PostgreSQL (15 or later) with pgvector, for example',
          '  docker run -d --name agentmem-pg -e POSTGRES_HOST_AUTH_METHOD=trust -p 5432:5432 pgvector/pgvector:pg17',
          '  DATABASE_URL=postgres://postgres@localhost:5432/postgres npm run test:postgres',
          'or run it from a checkout with ../shared/postgres/start.sh beside it (starts a throwaway server). See docs/postgres.md.',
        ].join('\n'),
      );
    }
    // Both at once, the second costing no wall time; one after the other while pgvector is not built yet
    // (start.sh builds and installs it on the first start).
    const built = existsSync('/usr/share/postgresql/15/extension/vector.control');
    const main = env.DATABASE_URL ? undefined : startServer();
    if (!built) await main;
    const crash = haveCrash ? undefined : startServer();
    await Promise.all([main, crash]);
    if (main) env.DATABASE_URL = (await main).DATABASE_URL;
    if (crash) {
      const { DATABASE_URL, PGDATA_DIR } = await crash;
      env.AGENTMEM_PG_CRASH_URL = DATABASE_URL;
      env.AGENTMEM_PG_DOWN = `bash '${join(shared, 'ctl.sh')}' down '${PGDATA_DIR}'`;
      env.AGENTMEM_PG_UP = `bash '${join(shared, 'ctl.sh')}' up '${PGDATA_DIR}'`;
    }
  }
} catch (error) {
  fail(error.message);
}
const ready = Date.now();

const reportDir = mkdtempSync(join(tmpdir(), 'agentmem-test-postgres-'));
const report = join(reportDir, 'report.json');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
child = spawn(
  process.execPath,
  [
    vitest,
    'run',
    '--config',
    'vitest.postgres.config.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, env, stdio: 'inherit' },
);
const code = await new Promise((done) => child.on('exit', (c, signal) => done(c ?? (signal ? 1 : 0))));
child = undefined;
if (interrupted) process.exit(interrupted);
let result;
try {
  result = JSON.parse(readFileSync(report, 'utf8'));
} catch {
  result = undefined;
} finally {
  rmSync(reportDir, { recursive: true, force: true });
}
stopServers();
const seconds = (ms) => (ms / 1000).toFixed(1);
if (!result) fail(`vitest exited ${code} without a report.`);
const skipped = result.testResults.flatMap((file) =>
  file.assertionResults
    .filter((t) => t.status !== 'passed' && t.status !== 'failed')
    .map((t) => `${file.name.replace(`${root}/`, '')}: ${t.fullName} (${t.status})`),
);
process.stderr.write(
  `test:postgres: ${result.numPassedTests} passed, ${result.numFailedTests} failed, ${skipped.length} skipped on a real server ` +
    `(servers ready in ${seconds(ready - t0)} s, tests ${seconds(Date.now() - ready)} s)\n`,
);
if (skipped.length > 0) {
  fail(`every real-server test must run, but these did not:\n  ${skipped.join('\n  ')}`);
}
if (result.numTotalTests === 0) fail('no test ran.');
process.exit(code);
