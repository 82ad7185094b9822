import { join, resolve } from 'node:path';
import { AgentMemoryError } from '@agentmem/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_PORT, parseServerArgs, resolveConfig } from './server-config';

const serve = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const parsed = parseServerArgs(argv, env);
  if (parsed.kind !== 'serve') throw new Error(`expected serve, got ${parsed.kind}`);
  return parsed.config;
};

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (AgentMemoryError.isInstance(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an AgentMemoryError');
};

describe('agentmem-mcp configuration', () => {
  it('defaults to the CLI store under the working directory, stdio, branch from git', () => {
    const config = serve([], {});
    expect(config).toEqual({ db: resolve('.agentmem/memory.db'), cwd: process.cwd(), skills: [] });
  });

  it('takes every setting from the environment, and flags win over it', () => {
    const env = {
      AGENTMEM_CWD: '/work/app',
      AGENTMEM_DB: 'data/mem.db',
      AGENTMEM_TENANT: 'dana',
      AGENTMEM_BRANCH: 'feature/x',
      AGENTMEM_AGENT_ID: 'cursor',
      AGENTMEM_SESSION: 'thread-1',
      AGENTMEM_SKILLS: '.cursor/rules:/opt/skills',
    };
    expect(serve([], env)).toEqual({
      cwd: '/work/app',
      db: '/work/app/data/mem.db',
      tenant: 'dana',
      branch: 'feature/x',
      agentId: 'cursor',
      session: 'thread-1',
      skills: ['/work/app/.cursor/rules', '/opt/skills'],
    });
    const flags = serve(['--db', '/tmp/other.db', '--tenant', 'eli', '--skills', 'a', '--skills', 'b'], env);
    expect(flags).toMatchObject({ db: '/tmp/other.db', tenant: 'eli', skills: ['/work/app/a', '/work/app/b'] });
  });

  it('selects Qdrant by URL, with collection and an API key from the environment only', () => {
    expect(serve(['--qdrant-url', 'http://localhost:6333'], { AGENTMEM_QDRANT_API_KEY: 'k' }).qdrant).toEqual({
      url: 'http://localhost:6333',
      collection: 'agentmem',
      apiKey: 'k',
    });
    expect(serve([], { AGENTMEM_QDRANT_URL: 'https://q.example', AGENTMEM_QDRANT_COLLECTION: 'team' }).qdrant).toEqual({
      url: 'https://q.example',
      collection: 'team',
    });
    expect(errorOf(() => serve(['--qdrant-url', 'localhost:6333'])).message).toContain('http(s) URL');
  });

  it('serves HTTP on loopback only', () => {
    expect(serve(['--http']).http).toEqual({ host: '127.0.0.1', port: DEFAULT_HTTP_PORT });
    expect(serve(['--port', '0', '--host', '::1']).http).toEqual({ host: '::1', port: 0 });
    expect(resolveConfig({ port: 4000 }, {}).http).toEqual({ host: '127.0.0.1', port: 4000 });
    expect(errorOf(() => serve(['--http', '--host', '0.0.0.0'])).message).toContain('not a loopback address');
    expect(errorOf(() => serve(['--port', '70000'])).message).toContain('--port must be a whole number');
  });

  it('refuses unknown flags, missing values and bad branch names as INVALID_INPUT', () => {
    expect(errorOf(() => serve(['--nope']))).toMatchObject({ code: 'INVALID_INPUT' });
    expect(errorOf(() => serve(['--db']))).toMatchObject({ code: 'INVALID_INPUT' });
    expect(errorOf(() => serve(['stray']))).toMatchObject({ code: 'INVALID_INPUT' });
    expect(errorOf(() => serve(['--branch', 'x'.repeat(300)]))).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('answers --help and --version without serving', () => {
    expect(parseServerArgs(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseServerArgs(['-V'], {})).toEqual({ kind: 'version' });
  });

  it('keeps a relative --cwd relative to where the server starts', () => {
    expect(serve(['--cwd', 'sub']).db).toBe(join(resolve('sub'), '.agentmem/memory.db'));
  });
});
