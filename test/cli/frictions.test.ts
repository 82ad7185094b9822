// Small frictions a new user met in a walkthrough of the CLI, each checked as the user meets it.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type AddressInfo, createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeCohereServer } from '../cohere/fake-cohere-server';
import { runCli, useFreshStore } from './run-cli';

// The Cohere adapter's waits between attempts, recorded instead of slept: the offline runs below would
// otherwise sit through the default backoff (0.25 + 0.5 + 1 s) three times. Attempts are real requests.
const backoffWaits = vi.hoisted(() => [] as number[]);
vi.mock('../../packages/cohere/src/backoff', () => ({
  backoff: async (ms: number) => {
    backoffWaits.push(ms);
  },
}));

describe('recall --include-superseded', () => {
  const store = useFreshStore();

  it('ranks the active memory before the one it superseded when both score the same, whichever came first', async () => {
    // "14" and "16" weigh the same for the query: the two memories tie on every signal.
    const pairs: [string, string][] = [
      ['We deploy with PostgreSQL 14', 'We deploy with PostgreSQL 16'],
      ['We deploy with PostgreSQL 16', 'We deploy with PostgreSQL 14'],
    ];
    for (const [older, newer] of pairs) {
      const db = ['--db', store.tmp.path(`${older.slice(-2)}.db`), '--branch', 'main'];
      for (const content of [older, newer])
        expect((await runCli([...db, 'remember', content, '-t', 'project'])).code).toBe(0);
      const run = await runCli([...db, '--json', 'recall', 'PostgreSQL', '--include-superseded']);
      const results = run.json().results as { content: string; memory: { supersededBy?: string } }[];
      expect(results.map((r) => r.content)).toEqual([newer, older]);
      expect(results[0]!.memory.supersededBy).toBeUndefined();
      expect(results[1]!.memory.supersededBy).toBeDefined();
    }
  });
});

describe('--embedder cohere: without a key, or without a connection', () => {
  const store = useFreshStore();
  let cohere: FakeCohereServer;
  const saved = { key: process.env.CO_API_KEY, url: process.env.AGENTMEM_COHERE_URL };
  beforeAll(async () => {
    cohere = await new FakeCohereServer().start();
  });
  afterAll(() => cohere.stop());
  afterEach(() => {
    for (const [name, value] of [
      ['CO_API_KEY', saved.key],
      ['AGENTMEM_COHERE_URL', saved.url],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    cohere.reset();
  });
  beforeEach(() => {
    backoffWaits.length = 0;
  });
  const cohereCli = (db: string, ...argv: string[]) =>
    runCli(['--db', db, '--branch', 'main', '--embedder', 'cohere:embed-english-light-v3.0', ...argv]);

  it('says how to set CO_API_KEY before opening the store or sending anything, and creates no store', async () => {
    delete process.env.CO_API_KEY;
    process.env.AGENTMEM_COHERE_URL = cohere.url;
    const db = store.tmp.path('new/cohere.db');
    const run = await cohereCli(db, 'remember', 'Orders live in PostgreSQL 16', '-t', 'project');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error [AUTHENTICATION]: --embedder cohere:embed-english-light-v3.0 needs a Cohere API key and CO_API_KEY is not set: export CO_API_KEY=<your key> (keys are at dashboard.cohere.com/api-keys) and run the command again. Nothing was opened or sent.\n',
    );
    expect(cohere.requests).toHaveLength(0);
    expect(existsSync(store.tmp.path('new'))).toBe(false);
  });

  it('is BACKEND_UNAVAILABLE naming the URL when Cohere cannot be reached; a store the failed command created is removed, one that was there stays', async () => {
    process.env.CO_API_KEY = cohere.apiKey;
    process.env.AGENTMEM_COHERE_URL = await closedUrl();
    const db = store.tmp.path('new/cohere.db');
    const offline = await cohereCli(db, 'remember', 'Orders live in PostgreSQL 16', '-t', 'project');
    expect(offline.code).toBe(1);
    expect(offline.stderr).toMatch(
      /^error \[BACKEND_UNAVAILABLE\]: Cannot reach Cohere at http:\/\/127\.0\.0\.1:\d+ for embed after 4 attempts \(ECONNREFUSED\)\. Check the network connection and that AGENTMEM_COHERE_URL is right, then try again\.\n$/,
    );
    // The CLI keeps the adapter's documented policy: three retries, backing off 250, 500 and 1000 ms.
    expect(backoffWaits).toEqual([250, 500, 1000]);
    expect(readdirSync(store.tmp.dir)).toEqual([]);
    // An empty file given as --db is put back as it was.
    writeFileSync(store.db, '');
    expect((await cohereCli(store.db, 'remember', 'Orders live in PostgreSQL 16', '-t', 'project')).code).toBe(1);
    expect(readFileSync(store.db, 'utf8')).toBe('');
    // A store with memories is never removed: the failure leaves it as it was.
    process.env.AGENTMEM_COHERE_URL = cohere.url;
    expect((await cohereCli(store.db, 'remember', 'Orders live in PostgreSQL 16', '-t', 'project')).code).toBe(0);
    process.env.AGENTMEM_COHERE_URL = await closedUrl();
    expect((await cohereCli(store.db, 'remember', 'Deploys run on Tuesdays', '-t', 'project')).code).toBe(1);
    process.env.AGENTMEM_COHERE_URL = cohere.url;
    expect((await cohereCli(store.db, '--json', 'stats')).json().total).toBe(1);
  });
});

/** A local URL where nothing listens (a port that was free a moment ago). */
async function closedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('one spelling of an option across commands', () => {
  it('is --qdrant-url for inspect as for mcp; the old --qdrant still works, hidden from help', async () => {
    for (const command of ['inspect', 'mcp']) {
      const help = (await runCli([command, '--help'])).stdout;
      expect(help, command).toContain('--qdrant-url <url>');
      expect(help, command).not.toMatch(/--qdrant </);
    }
    // Both spellings reach the Qdrant server (nothing listens there), neither is an unknown option.
    const url = await closedUrl();
    for (const flag of ['--qdrant-url', '--qdrant']) {
      const run = await runCli(['inspect', flag, url]);
      expect(run.stderr, flag).toMatch(new RegExp(`^error \\[BACKEND_UNAVAILABLE\\]: Cannot reach Qdrant at ${url} `));
    }
    const both = await runCli(['inspect', '--qdrant', url, '--qdrant-url', url]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("option '--qdrant <url>' cannot be used with option '--qdrant-url <url>'");
  });
});

describe('usage errors of a command', () => {
  it("point at that command's own help, not the top-level one", async () => {
    const mcp = await runCli(['--embedder', 'hashing:64', 'mcp']);
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toMatch(
      /^error \[USAGE\]: `agentmem mcp` serves stores of the default embedder only; .* \(see agentmem mcp --help\)\n$/,
    );
    // Errors of the program itself still name the top-level help, which lists the commands.
    expect((await runCli(['help', 'bogus'])).stderr).toMatch(/\(see agentmem --help\)\n$/);
    expect((await runCli(['--verbose'])).stderr).toMatch(/\(see agentmem --help\)\n$/);
  });
});

describe('skills load of one file', () => {
  const store = useFreshStore();
  const write = (name: string, text: string) => {
    const path = store.tmp.path(name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };

  it('refuses a text file that is no skill file, naming what a skill file is, and creates no store', async () => {
    const notes = [
      [write('notes.txt', 'Always run the tests before pushing.\n'), 'it is a .txt file, not Markdown'],
      [write('deploy.sh', '#!/bin/sh\necho deploy\n'), 'it is a .sh file, not Markdown'],
      [write('CHANGELOG.md', '# Changelog\n\n## 1.0.0\n- first release\n'), 'it is Markdown without skill frontmatter'],
      [write('post.md', '---\ntitle: A blog post\n---\nSome text.\n'), 'it is Markdown without skill frontmatter'],
    ];
    for (const [file, reason] of notes) {
      const run = await store.cli('skills', 'load', file!);
      expect(run.code, file).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`error [INVALID_INPUT]: ${file} is not a skill: ${reason}. Nothing was loaded.`);
      expect(run.stderr).toContain('A skill file is UTF-8 Markdown in one of four formats');
    }
    expect(existsSync(store.db)).toBe(false);
  });

  it('loads a skill file of each format', async () => {
    const files = [
      write('docker.md', '---\ndescription: Docker best practices\n---\nUse multi-stage builds.\n'),
      write('python/SKILL.md', '---\nname: python\ndescription: Python conventions\n---\nUse pytest.\n'),
      write(
        '.cursor/rules/ci.mdc',
        '---\ndescription: CI pipelines\nglobs: .github/workflows/*.yml\n---\nPin actions.\n',
      ),
      write('.claude/rules/api.md', '# API rules\nVersion every endpoint.\n'),
    ];
    for (const file of files) {
      const run = await store.cli('skills', 'load', file);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Loaded 1 skill from /);
    }
    expect((await store.cli('--json', 'skills', 'list')).json().skills).toHaveLength(4);
  });
});

describe('counts of one', () => {
  const store = useFreshStore();

  it('say "1 memory" in export, import and branch delete', async () => {
    expect((await store.cli('remember', 'Orders live in PostgreSQL 16', '-t', 'project')).code).toBe(0);
    const out = store.tmp.path('one.jsonl');
    expect((await store.cli('export', '--out', out)).stdout).toContain('Exported 1 memory to');

    const copy = ['--db', store.tmp.path('copy.db'), '--branch', 'feature/x'];
    const imported = await runCli([...copy, 'import', out]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Imported 1 of 1 memory from');

    const deleted = await runCli([...copy, '--yes', 'branch', 'delete', 'main']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain('Deleted 1 memory of branch main');
  });
});
