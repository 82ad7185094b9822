import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const worker = fileURLToPath(new URL('./store-worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export interface WorkerRun {
  /** Every JSON line the worker printed. */
  lines: Record<string, unknown>[];
  code: number | null;
  stderr: string;
}

/** A store-worker.ts child: `ready` once it is connected, `go()` starts its work, `done` when it exits. */
export interface Worker {
  ready: Promise<void>;
  go(): void;
  done: Promise<WorkerRun>;
  process: ChildProcess;
}

export function startWorker(job: Record<string, unknown>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, JSON.stringify(job)], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  let buffered = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
      buffered = buffered.slice(nl + 1);
      lines.push(line);
      if (line.ready) markReady();
      nl = buffered.indexOf('\n');
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<WorkerRun>((resolve) =>
    child.on('close', (code) => {
      markReady(); // a worker that died before it was ready: `done` says why
      resolve({ lines, code, stderr });
    }),
  );
  return { ready, go: () => child.stdin!.write('go\n'), done, process: child };
}

/**
 * Starts every worker, waits until all are connected, then lets them go at once while `alongside` runs in
 * this process; resolves when all exited, with what `alongside` returned.
 */
export async function runTogether<T>(
  jobs: Record<string, unknown>[],
  alongside: () => Promise<T>,
): Promise<{ runs: WorkerRun[]; alongside: T }> {
  const workers = jobs.map(startWorker);
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.go();
  const [runs, result] = await Promise.all([Promise.all(workers.map((w) => w.done)), alongside()]);
  return { runs, alongside: result };
}
