import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, httpUrlOf, root, type Started, startServer, tempDir } from './helpers';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const dir = (name: string) => {
  const path = tmp.path(name);
  mkdirSync(path, { recursive: true });
  return path;
};
const asRoot = (path: string) => ({ uri: pathToFileURL(path).href, name: path });

describe("agentmem-mcp follows the client's roots (the SDK's own client)", () => {
  let server: Started;
  let roots: { uri: string; name?: string }[] = [];
  const work = dir('work');
  const a = dir('root-a');
  const b = dir('root-b');

  beforeAll(async () => {
    roots = [asRoot(a), { uri: 'file://build-host/srv/repo', name: 'another machine' }, asRoot(b)];
    // A fixed branch: the roots still decide where paths may point.
    server = await startServer(['--db', join(dir('data'), 'memory.db'), '--branch', 'main', '--cwd', work], {
      client: { capabilities: { roots: { listChanged: true } } },
      setup: (client) => client.setRequestHandler(ListRootsRequestSchema, () => ({ roots })),
    });
    await call(server.client, 'remember', { content: 'Deploys go through ArgoCD.', type: 'project' });
  });
  afterAll(() => server?.close());

  const changeRoots = async (next: typeof roots) => {
    roots = next;
    await server.client.sendRootsListChanged();
  };

  it('honours every declared file:// root, not only the first', async () => {
    expect((await call(server.client, 'snapshot', { path: join(a, 'one.agentmem') })).path).toBe(
      join(a, 'one.agentmem'),
    );
    expect((await call(server.client, 'snapshot', { path: join(b, 'two.agentmem') })).path).toBe(
      join(b, 'two.agentmem'),
    );
    expect((await call(server.client, 'diff_snapshot', { path: join(b, 'two.agentmem') })).counts).toBeDefined();
    expect(server.stderr()).toContain('ignored the root "file://build-host/srv/repo"');
  });

  it('refuses a root the client withdrew, at once, for reads and writes', async () => {
    await changeRoots([asRoot(b)]);
    const write = await callError(server.client, 'snapshot', { path: join(a, 'three.agentmem') });
    expect(write.code).toBe('INVALID_INPUT');
    expect(write.message).toMatch(/outside the directories this server may use/);
    expect(existsSync(join(a, 'three.agentmem'))).toBe(false);
    const read = await callError(server.client, 'merge_snapshot', { path: join(a, 'one.agentmem'), dryRun: true });
    expect(read.code).toBe('INVALID_INPUT');
    // The root still declared works; --cwd and the data directory always do.
    await call(server.client, 'snapshot', { path: join(b, 'four.agentmem') });
    await call(server.client, 'snapshot', { path: 'five.agentmem' });

    await changeRoots([]);
    expect((await callError(server.client, 'snapshot', { path: join(b, 'six.agentmem') })).code).toBe('INVALID_INPUT');
    await changeRoots([asRoot(a), asRoot(b)]);
    await call(server.client, 'snapshot', { path: join(a, 'seven.agentmem') });
  });

  it('answers a path the file system cannot take with INVALID_INPUT and no stack trace', async () => {
    for (const [tool, path] of [
      ['snapshot', 'bad\u0000name.agentmem'],
      ['diff_snapshot', `${a}/x\u0000`],
      ['merge_snapshot', 'x'.repeat(5000)],
      ['snapshot', '   '],
    ] as const) {
      const refused = await callError(server.client, tool, { path, dryRun: true });
      expect(refused.code, JSON.stringify(path).slice(0, 40)).toBe('INVALID_INPUT');
      expect(refused.message).not.toMatch(/\n\s+at /);
    }
    expect(server.stderr()).not.toMatch(/failed: .*\n\s+at /);
  });

  it.skipIf(process.platform === 'win32')('refuses a FIFO inside a root instead of blocking on it', async () => {
    const fifo = join(a, 'pipe.agentmem');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return;
    for (const tool of ['diff_snapshot', 'merge_snapshot', 'snapshot']) {
      const refused = await callError(server.client, tool, { path: fifo, dryRun: true, overwrite: true });
      expect(refused.code, tool).toBe('INVALID_INPUT');
      expect(refused.message).toMatch(/FIFO, device or socket/);
    }
  });
});

describe('agentmem-mcp --http: each session has the roots of its own client', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.exitCode === null) child.kill();
  });

  it("one client's roots are no other client's", async () => {
    const shared = dir('http-shared-root');
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'packages/mcp/src/bin.ts', '--http', '--port', '0', '--db', join(dir('http-data'), 'm.db')],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const url = await httpUrlOf(child);
    const connect = async (declared: string[]) => {
      const client = new Client(
        { name: 'agentmem-roots-test', version: '1.0.0' },
        { capabilities: { roots: { listChanged: true } } },
      );
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: declared.map(asRoot) }));
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    };
    const owner = await connect([shared]);
    const other = await connect([]);
    try {
      await call(owner, 'remember', { content: 'Sessions keep their own roots.', type: 'user' });
      await call(owner, 'snapshot', { path: join(shared, 'owner.agentmem') });
      expect((await callError(other, 'snapshot', { path: join(shared, 'other.agentmem') })).code).toBe('INVALID_INPUT');
      expect(existsSync(join(shared, 'other.agentmem'))).toBe(false);
    } finally {
      await owner.close();
      await other.close();
    }
  });
});
