import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useFreshStore } from './run-cli';

const store = useFreshStore();
const cli = store.cli;

describe('hostile input at the command line: one-line errors, nothing written, nothing drives the terminal', () => {
  it('a number that is not decimal is refused, not read as another number (-i 0x1 was stored as 1)', async () => {
    for (const bad of ['0x1', '1e400', 'Infinity', '', ' ']) {
      const run = await cli('remember', 'x', '--type', 'user', '-i', bad);
      expect(run.code, bad).toBe(2);
      expect(run.stderr).toMatch(/Expected a decimal number/);
    }
    expect((await cli('remember', 'x', '--type', 'user', '-i', '.25', '--json')).json().memory.importance).toBe(0.25);
  });

  it('--db under a file: one line that names the fix, not EEXIST from mkdir', async () => {
    writeFileSync(store.tmp.path('f'), 'a file');
    const run = await runAt(join(store.tmp.path('f'), 'x.db'), 'remember', 'x', '--type', 'user');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \[INVALID_INPUT\]: Cannot create .*a file, not a directory, is in the way.*\n$/);
    expect(run.stderr.split('\n')).toHaveLength(2);
  });

  it('import of a binary file or of many bad lines is one line, and imports nothing', async () => {
    const binary = store.tmp.path('binary.jsonl');
    writeFileSync(binary, Buffer.from([0x7b, 0x00, 0x01, 0xff, 0x0a, 0x1b, 0x5b, 0x33, 0x31, 0x6d]));
    const run = await cli('import', binary);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \[INVALID_INPUT\]: .*binary\.jsonl is not a text file \(NUL byte at offset 1\)/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    const many = store.tmp.path('many.jsonl');
    writeFileSync(many, Array.from({ length: 18 }, (_, i) => `not json ${i}`).join('\n'));
    const bad = await cli('import', many);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/has 18 invalid lines \(line 1: .*; and 15 more; --json lists every line\)/);
    expect(existsSync(store.db)).toBe(false);
  });

  it('import follows the same ingest policy as remember (NUL, escapes, lone surrogates)', async () => {
    const file = store.tmp.path('dirty.jsonl');
    writeFileSync(file, `${JSON.stringify({ content: 'Uses\u0000 \u001b[31mpnpm\u001b[0m \ud800', type: 'user' })}\n`);
    expect((await cli('import', file)).code).toBe(0);
    const exported = (await cli('export')).stdout.trim();
    expect(JSON.parse(exported).content).toBe('Uses pnpm \uFFFD');
  });

  it('import passes the whole write policy: tags, metadata and context cleaned, 2 MB of metadata and a bad tenant refused', async () => {
    const file = store.tmp.path('dirty-fields.jsonl');
    const line = {
      content: 'Deploys on Tuesdays',
      type: 'project',
      tags: ['ops\u0000', '\u001b[31mred', 'x\ud800'],
      metadata: { 'k\u0007': 'v\u0000\u009b2J', nested: ['a\u001b]0;t\u0007b'] },
      context: 'from \u0000chat',
      extra: 'dropped',
    };
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    expect((await cli('import', file)).code).toBe(0);
    const exported = JSON.parse((await cli('export')).stdout.trim());
    expect(exported).toMatchObject({
      tags: ['ops', 'red', 'x\uFFFD'],
      metadata: { k: 'v', nested: ['ab'] },
      context: 'from chat',
    });
    expect(exported.extra).toBeUndefined();

    const big = store.tmp.path('big.jsonl');
    writeFileSync(
      big,
      [
        JSON.stringify({ content: 'fine', type: 'user' }),
        JSON.stringify({ content: 'big', type: 'user', metadata: { blob: 'x'.repeat(2 * 1024 * 1024) } }),
        JSON.stringify({ content: 'bad tenant', type: 'user', tenant: 'acme\u0000' }),
      ].join('\n'),
    );
    const run = await cli('import', big, '--json');
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stderr);
    expect(error.details.errors).toEqual([
      expect.objectContaining({ line: 2, field: 'metadata', rule: 'max-bytes' }),
      expect.objectContaining({ line: 3, field: 'tenant', rule: 'control-characters' }),
    ]);
    expect((await cli('stats', '--json')).json().total).toBe(1);
  });

  it('skills list and show print no escape sequences from skill text', async () => {
    const dir = store.tmp.path('skills');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'evil.md'),
      '---\ndescription: "\\e[2J\\e]0;pwned\\a\\e[31mred \\u202Eevil"\n---\nBody \u001b[5mblink',
    );
    expect((await cli('skills', 'load', dir)).code).toBe(0);
    const list = await cli('skills', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('red evil');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    expect(list.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it('a damaged row is one error naming the record, not a bare SyntaxError', async () => {
    expect((await cli('remember', 'Uses pnpm.', '--type', 'user')).code).toBe(0);
    const db = new Database(store.db);
    db.prepare("UPDATE records SET payload = '{not json' WHERE json_extract(attributes, '$.kind') = 'memory'").run();
    db.close();
    const run = await cli('export');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \[BACKEND_ERROR\]: Record \S+ has a damaged payload column \(not JSON\)/);
  });
});

function runAt(db: string, ...argv: string[]) {
  return import('./run-cli').then(({ runCli }) => runCli(['--db', db, '--branch', 'main', ...argv]));
}
