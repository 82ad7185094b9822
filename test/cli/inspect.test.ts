import { request } from 'node:http';
import { lifecycle } from '../../packages/cli/src/commands/inspect';
import { afterEach, describe, expect, it } from 'vitest';
import { useFreshStore } from './run-cli';

const store = useFreshStore();
const original = lifecycle.waitForStop;
afterEach(() => {
  lifecycle.waitForStop = original;
});

function status(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

describe('agentmem inspect', () => {
  it('refuses a store that does not exist, naming the fix', async () => {
    const run = await store.cli('inspect');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No memory database at');
  });

  it('serves the store on 127.0.0.1 read-only, prints the tokened URL, and stops cleanly', async () => {
    expect((await store.cli('remember', 'The user prefers dark mode', '--type', 'user')).code).toBe(0);
    let served: { url: string; answer: number } | undefined;
    lifecycle.waitForStop = async (inspector) => {
      served = { url: inspector.url, answer: await status(inspector.url) };
    };
    const run = await store.cli('inspect');
    expect(run.code).toBe(0);
    expect(served?.answer).toBe(200); // the token was accepted (a wrong one is 401)
    expect(run.stdout).toContain(`Open ${served?.url}`);
    expect(run.stdout).toMatch(/http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}/);
    expect(run.stdout).toContain('(read-only)');
    await expect(status(served!.url)).rejects.toThrow(); // closed after the stop
  });

  it('says when writes are allowed (--json for scripts)', async () => {
    expect((await store.cli('remember', 'Deploys happen on Tuesdays', '--type', 'project')).code).toBe(0);
    lifecycle.waitForStop = async () => {};
    const run = await store.cli('--json', 'inspect', '--allow-writes');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ allowWrites: true, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/) });
  });

  it('takes --port 0 (any free port), as mcp --port does', async () => {
    expect((await store.cli('remember', 'The user prefers dark mode', '--type', 'user')).code).toBe(0);
    let url = '';
    lifecycle.waitForStop = async (inspector) => {
      url = inspector.url;
    };
    const run = await store.cli('inspect', '--port', '0');
    expect(run.code, run.stderr).toBe(0);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);
  });

  it('refuses a port past 65535 as a usage error naming the range, never INTERNAL', async () => {
    expect((await store.cli('remember', 'The user prefers dark mode', '--type', 'user')).code).toBe(0);
    lifecycle.waitForStop = async () => {};
    const run = await store.cli('inspect', '--port', '70000');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Expected a port number from 0 to 65535');
    expect(run.stderr).not.toContain('INTERNAL');
  });
});
