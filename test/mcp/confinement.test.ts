import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, type Started, startServer, tempDir } from './helpers';

const tmp = tempDir();
const outside = mkdtempSync(join(tmpdir(), 'agentmem-mcp-outside-'));

describe('agentmem-mcp confines what the agent can name', () => {
  let server: Started;

  beforeAll(async () => {
    mkdirSync(tmp.path('work'));
    symlinkSync(outside, tmp.path('work/escape'));
    writeFileSync(join(outside, 'secret.db'), 'not yours');
    server = await startServer(['--db', tmp.path('data/memory.db'), '--branch', 'main', '--cwd', tmp.path('work')]);
    await call(server.client, 'remember', { content: 'Deploys go through ArgoCD.', type: 'project' });
  });

  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  it('snapshot paths: no .. escape, no absolute path elsewhere, no link out, no directory created', async () => {
    for (const path of [
      '../../x.agentmem',
      '/nonexistent/dir/x.agentmem',
      join(outside, 'x.agentmem'),
      'escape/x.agentmem',
    ]) {
      const refused = await callError(server.client, 'snapshot', { path });
      expect(refused.code, path).toBe('INVALID_INPUT');
    }
    expect(existsSync('/nonexistent')).toBe(false);
    expect(existsSync(join(outside, 'x.agentmem'))).toBe(false);
    const missingDir = await callError(server.client, 'snapshot', { path: 'new/dir/x.agentmem' });
    expect(missingDir.code).toBe('NOT_FOUND');
    expect(existsSync(tmp.path('work/new'))).toBe(false);
    // Inside --cwd and inside the data directory it works.
    expect((await call(server.client, 'snapshot', { path: 'ok.agentmem' })).path).toBe(tmp.path('work/ok.agentmem'));
    expect((await call(server.client, 'snapshot', { path: tmp.path('data/ok.agentmem') })).path).toBe(
      tmp.path('data/ok.agentmem'),
    );
  });

  it('snapshot files to read: a link out of the roots is refused too', async () => {
    for (const tool of ['diff_snapshot', 'merge_snapshot']) {
      const refused = await callError(server.client, tool, { path: 'escape/secret.db', dryRun: true });
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.message).toMatch(/symbolic link/);
    }
  });

  it('branch names follow git ref-name rules', async () => {
    for (const branch of ['../../etc', 'a..b', '-rf', 'x.lock', 'with space']) {
      const refused = await callError(server.client, 'branch_switch', { branch });
      expect(refused.code, branch).toBe('INVALID_INPUT');
    }
    expect((await call(server.client, 'branch_switch', { branch: 'feature/login' })).current).toBe('feature/login');
  });

  it('content and queries over the limit are refused with the limit named', async () => {
    const big = await callError(server.client, 'remember', { content: 'x'.repeat(8 * 1024 * 1024), type: 'user' });
    expect(big.code).toBe('INVALID_INPUT');
    expect(big.message).toMatch(/the limit is 32000/);
    const query = await callError(server.client, 'recall', { query: 'q'.repeat(2 * 1024 * 1024) });
    expect(query.code).toBe('INVALID_INPUT');
    expect(query.message).toMatch(/the limit is 32000/);
  });
});
