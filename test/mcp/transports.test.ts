import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeQdrant } from '../qdrant/fake-qdrant';
import { describeWithSpec } from '../qdrant/helpers';
import { call, httpUrlOf, readText, root, startServer, tempDir } from './helpers';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('agentmem mcp (the CLI command)', () => {
  it('serves the --db store over stdio with the global tenant and branch', async () => {
    const server = await startServer(
      ['--db', tmp.path('cli.db'), '--tenant', 'dana', '--branch', 'release/1.2', 'mcp'],
      { script: 'packages/cli/src/bin.ts' },
    );
    try {
      const written = await call(server.client, 'remember', {
        content: 'Release 1.2 ships on Friday.',
        type: 'project',
      });
      expect(written.memory).toMatchObject({ tenant: 'dana', namespace: 'project:release/1.2' });
      expect((await call(server.client, 'recall', { query: 'when does release 1.2 ship' })).results[0].memory.id).toBe(
        written.memory.id,
      );
      expect(server.errors).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('branch from the client working directory', () => {
  const repo = (name: string, branch: string) => {
    const dir = tmp.path(name);
    mkdirSync(dir);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q', '-b', branch);
    git('-c', 'user.email=a@b.c', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'one');
    return { dir, git };
  };

  it("follows git in the client's first root: checkouts during the session, and a new root when roots change", async () => {
    const app = repo('app', 'feature/roots');
    const other = repo('other', 'release/2');
    const elsewhere = tmp.path('not-a-repo');
    mkdirSync(elsewhere);
    let root = app.dir;
    const server = await startServer(['--db', tmp.path('roots.db'), '--cwd', elsewhere], {
      client: { capabilities: { roots: { listChanged: true } } },
      setup: (client) =>
        client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(root).href }] })),
    });
    // The server asks for the roots once the session is initialized, in the background.
    const eventually = async (branch: string) => {
      let current = '';
      for (let i = 0; i < 100 && current !== branch; i++) {
        current = (await call(server.client, 'branch_list')).current;
        if (current !== branch) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return current;
    };
    try {
      expect(await eventually('feature/roots')).toBe('feature/roots');
      const written = await call(server.client, 'remember', { content: 'Roots decide the branch.', type: 'project' });
      expect(written.memory.namespace).toBe('project:feature/roots');

      // A checkout in the terminal: the next call already sees it.
      app.git('checkout', '-q', '-b', 'fix/typo');
      expect((await call(server.client, 'branch_list')).current).toBe('fix/typo');
      const recalled = await call(server.client, 'recall', { query: 'roots decide the branch' });
      expect(recalled.results).toEqual([]); // project memories of feature/roots stay there

      // The client opens another folder.
      root = other.dir;
      await server.client.sendRootsListChanged();
      expect(await eventually('release/2')).toBe('release/2');

      // Once the agent picks a branch, git no longer moves it.
      await call(server.client, 'branch_switch', { branch: 'feature/roots' });
      other.git('checkout', '-q', '-b', 'hotfix');
      expect((await call(server.client, 'branch_list')).current).toBe('feature/roots');
    } finally {
      await server.close();
    }
  });
});

describeWithSpec('agentmem-mcp --qdrant-url (fake Qdrant validated against the OpenAPI spec)', () => {
  it('keeps memories and skills in the Qdrant collection and snapshots it to a SQLite file', async () => {
    const fake = await FakeQdrant.start();
    const server = await startServer(
      ['--qdrant-url', fake.url, '--qdrant-collection', 'mcp_test', '--branch', 'main', '--cwd', tmp.dir],
      {
        env: { AGENTMEM_TENANT: 'team-a' },
      },
    );
    try {
      const written = await call(server.client, 'remember', {
        content: 'Staging runs on Kubernetes 1.29.',
        type: 'project',
      });
      expect(written.memory.tenant).toBe('team-a');
      const { results } = await call(server.client, 'recall', { query: 'which kubernetes version on staging' });
      expect(results[0].memory.id).toBe(written.memory.id);
      const stats = JSON.parse((await readText(server.client, 'agentmem://stats')).text);
      expect(stats.store).toEqual({ qdrant: fake.url, collection: 'mcp_test' });
      const snap = await call(server.client, 'snapshot', { path: tmp.path('from-qdrant.db') });
      expect(snap.manifest).toMatchObject({
        sourceBackend: expect.stringContaining('qdrant'),
        counts: { memories: 1 },
      });
      expect(fake.violations).toEqual([]);
    } finally {
      await server.close();
      await fake.stop();
    }
  });
});

describe('agentmem-mcp --http (Streamable HTTP on loopback)', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.exitCode === null) child.kill();
  });

  it('serves MCP sessions at /mcp, refuses foreign Host headers, stops on SIGTERM', async () => {
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'packages/mcp/src/bin.ts',
        '--http',
        '--port',
        '0',
        '--db',
        tmp.path('http.db'),
        '--branch',
        'main',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += String(chunk);
    });
    const url = await httpUrlOf(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const client = new Client({ name: 'agentmem-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await client.listTools();
    const written = await call(client, 'remember', { content: 'HTTP clients share the store.', type: 'user' });
    expect((await call(client, 'recall', { query: 'HTTP clients store' })).results[0].memory.id).toBe(
      written.memory.id,
    );
    const stats = JSON.parse((await readText(client, 'agentmem://stats')).text);
    expect(stats.total).toBe(1);
    await client.close();

    const post = (path: string, host: string, body: string) =>
      new Promise<number>((resolve, reject) => {
        const target = new URL(url);
        const headers = { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const req = request({ host: target.hostname, port: target.port, path, method: 'POST', headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.once('error', reject);
        req.end(body);
      });
    const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(await post('/mcp', 'attacker.example', toolsList)).toBe(403); // DNS rebinding
    expect(await post('/mcp', `localhost:${new URL(url).port}`, toolsList)).toBe(400); // no session
    expect(await post('/mcp', 'localhost', 'not json')).toBe(400);
    expect(await post('/elsewhere', 'localhost', toolsList)).toBe(404);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toBe('');
  });
});

describe('agentmem-mcp on a raw stdio pipe', () => {
  it('survives lines that are not JSON-RPC, answers the next request and exits 0 when stdin closes', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'packages/mcp/src/bin.ts', '--db', tmp.path('raw.db'), '--branch', 'main'],
      { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const lines: string[] = [];
    let buffer = '';
    let waiting: (() => void) | undefined;
    child.stdout!.on('data', (chunk) => {
      buffer += String(chunk);
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts.filter((line) => line.trim() !== ''));
      waiting?.();
    });
    const nextLine = async () => {
      while (lines.length === 0) await new Promise<void>((resolve) => (waiting = resolve));
      return JSON.parse(lines.shift()!);
    };
    const send = (message: unknown) =>
      child.stdin!.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    send('this is not json');
    send({ jsonrpc: '2.0', id: 1, method: 'no/such/method' });
    expect(await nextLine()).toMatchObject({ id: 1, error: { code: -32601 } });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(await nextLine()).toMatchObject({ id: 2, result: { serverInfo: { name: 'agentmem' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'remember', arguments: 'not an object' } });
    // Refused by the SDK's request validation: an error response, not a dead server.
    const bad = await nextLine();
    expect(bad).toMatchObject({ id: 3, error: { message: expect.stringContaining('expected record') } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'recall', arguments: { query: 'anything' } } });
    expect(await nextLine()).toMatchObject({ id: 4, result: { structuredContent: { results: [] } } });

    child.stdin!.end();
    expect(await exited).toBe(0);
  });
});

describe('agentmem-mcp start-up errors', () => {
  const run = async (...args: string[]) => {
    try {
      await promisify(execFile)(process.execPath, ['--import', 'tsx', 'packages/mcp/src/bin.ts', ...args], {
        cwd: root,
        timeout: 30_000,
      });
      return { code: 0, stdout: '', stderr: '' };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('refuses a non-loopback host and unknown flags (usage, exit 2) and an unreachable Qdrant (exit 1), on stderr', async () => {
    const [host, flag, qdrant] = await Promise.all([
      run('--http', '--host', '0.0.0.0'),
      run('--bogus'),
      run('--qdrant-url', 'http://127.0.0.1:1', '--branch', 'main'),
    ]);
    expect(host).toMatchObject({ code: 2, stdout: '' });
    expect(host.stderr).toContain('--host 0.0.0.0 is not a loopback address');
    expect(flag).toMatchObject({ code: 2, stdout: '' });
    expect(flag.stderr).toMatch(/Unknown option '--bogus'.*agentmem-mcp --help/s);
    expect(qdrant).toMatchObject({ code: 1, stdout: '' });
    expect(qdrant.stderr).toContain('error [BACKEND_UNAVAILABLE]: Cannot reach Qdrant at http://127.0.0.1:1');
  });
});
