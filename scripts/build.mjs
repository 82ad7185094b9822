// `npm run build`: every workspace package's own `build` script, each started as soon as the
// @agentmem packages it depends on are built (their declarations are read from dist/), as many at
// once as there are cores. Sequential `npm run build --workspaces` left one of CI's two cores idle.
// BUILD_CONCURRENCY=N sets how many at once; BUILD_VERBOSE=1 prints each package's tsup output.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { workspaces } from './workspaces.mjs';

const packages = workspaces().filter((pkg) => pkg.manifest.scripts?.build);
const names = new Set(packages.map((pkg) => pkg.name));
const needs = new Map(
  packages.map((pkg) => {
    const { dependencies, peerDependencies, devDependencies } = pkg.manifest;
    const all = Object.keys({ ...dependencies, ...peerDependencies, ...devDependencies });
    return [pkg.name, all.filter((name) => names.has(name) && name !== pkg.name)];
  }),
);
const slots = Math.max(1, Number(process.env.BUILD_CONCURRENCY) || availableParallelism());

const done = new Set();
const running = new Set();
/** The builds in flight, stopped when another fails (their output would be lost behind the failure). */
const children = new Set();
const pending = [...packages];
const started = Date.now();

function build(pkg) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const chunks = [];
    const child = spawn('npm', ['run', 'build'], { cwd: pkg.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', reject);
    child.on('exit', (code) => {
      children.delete(child);
      // Each package's output printed whole, so two builds at once do not interleave their lines.
      const out = Buffer.concat(chunks).toString();
      if (code !== 0) {
        process.stderr.write(out);
        reject(new Error(`${pkg.name}: build failed (exit ${code})`));
        return;
      }
      if (process.env.BUILD_VERBOSE) process.stdout.write(out);
      console.log(`built ${pkg.name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      resolve();
    });
  });
}

await new Promise((resolve, reject) => {
  const next = () => {
    if (pending.length === 0 && running.size === 0) return resolve();
    while (running.size < slots) {
      const index = pending.findIndex((pkg) => needs.get(pkg.name).every((name) => done.has(name)));
      if (index === -1) break;
      const [pkg] = pending.splice(index, 1);
      running.add(pkg.name);
      build(pkg).then(() => {
        running.delete(pkg.name);
        done.add(pkg.name);
        next();
      }, reject);
    }
    if (running.size === 0 && pending.length > 0) {
      reject(new Error(`dependency cycle among ${pending.map((pkg) => pkg.name).join(', ')}`));
    }
  };
  next();
}).catch((error) => {
  for (const child of children) child.kill();
  console.error(error.message);
  process.exit(1);
});
console.log(`built ${done.size} packages in ${((Date.now() - started) / 1000).toFixed(1)} s (${slots} at once)`);
