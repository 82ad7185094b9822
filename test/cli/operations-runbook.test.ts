import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FakeCohereServer } from '../cohere/fake-cohere-server';
import { postgresStores, waitForServer } from '../postgres/helpers';
import { FakeQdrant } from '../qdrant/fake-qdrant';
import { qdrantSpecAvailable, SPEC_MISSING } from '../qdrant/spec';
import { runCli, tempDir } from './run-cli';

const DOC = readFileSync(join(__dirname, '../../docs/operations.md'), 'utf8');
/** Every `agentmem` line of the runbook's code blocks. */
const documented = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
  m[1]!.split('\n').filter((l) => l.startsWith('agentmem ')),
);
/** The runbook's example Qdrant collection and Postgres URL; the test points them at its fake Qdrant and PGlite. */
const QDRANT_DOC = 'http://localhost:6333/collections/agentmem';
const POSTGRES_DOC = 'postgres://agentmem:secret@localhost:5432/agentmem';
/** Lines run, in order, across the tests of this file (a documented retry runs a line twice, recorded once). */
const ran: string[] = [];
const locations = { qdrant: '', postgres: '' };

/** Runs one documented line with its placeholders resolved, and checks its exit code. */
async function step(
  tmp: ReturnType<typeof tempDir>,
  line: string,
  options: { expected?: number; id?: string; again?: boolean } = {},
) {
  if (!options.again) ran.push(line);
  const argv = line
    .replace(/^agentmem /, '')
    .split(' ')
    .map((a) =>
      a === 'ID'
        ? options.id!
        : a === QDRANT_DOC
          ? locations.qdrant
          : a === POSTGRES_DOC
            ? locations.postgres
            : /\.(db|jsonl|agentmem)$/.test(a)
              ? tmp.path(a)
              : a,
    );
  const run = await runCli(['--branch', 'main', ...argv]);
  expect(run.code, `${line}\n${run.stderr}`).toBe(options.expected ?? 0);
  return run;
}

const seed = (tmp: ReturnType<typeof tempDir>, name: string, facts: string[], type = 'project') =>
  writeFileSync(
    tmp.path(name),
    facts.map((content) => JSON.stringify({ content, type, createdAt: '2026-01-01T00:00:00Z' })).join('\n'),
  );

describe('docs/operations.md: each step is a command that works', () => {
  it('rolls back, restores and recovers with the outcome the runbook describes', async () => {
    const tmp = tempDir();
    let id = '';
    const run = (line: string, expected = 0) => step(tmp, line, { expected, id });
    try {
      // A store with a merge in it.
      seed(tmp, 'base.jsonl', ['Deploys go through ArgoCD.', 'Staging runs Kubernetes 1.29.']);
      await runCli(['--branch', 'main', '--db', tmp.path('memory.db'), 'import', tmp.path('base.jsonl')]);
      seed(tmp, 'other.jsonl', ['The billing service owns invoices.']);
      await runCli(['--branch', 'main', '--db', tmp.path('other.db'), 'import', tmp.path('other.jsonl')]);
      await runCli(['--branch', 'main', '--db', tmp.path('other.db'), 'snapshot', tmp.path('other.agentmem')]);
      await runCli(['--branch', 'main', '--db', tmp.path('memory.db'), '--yes', 'merge', tmp.path('other.agentmem')]);

      // Roll back the last merge.
      expect((await run('agentmem --db memory.db merges')).stdout).toMatch(/merge/i);
      await run('agentmem --db memory.db undo-merge --last --yes');
      const total = async () =>
        (await runCli(['--branch', 'main', '--db', tmp.path('memory.db'), 'stats', '--json'])).json().total;
      expect(await total()).toBe(2);

      // Roll back an import.
      seed(tmp, 'new.jsonl', ['A wrong fact from a bad export.', 'Another wrong fact.']);
      await run('agentmem --db memory.db import new.jsonl --dry-run');
      await run('agentmem --db memory.db snapshot before-import.agentmem');
      await run('agentmem --db memory.db import new.jsonl');
      expect(await total()).toBe(4);
      renameSync(tmp.path('memory.db'), tmp.path('memory.db.bad'));
      await run('agentmem --db memory.db merge before-import.agentmem --yes');
      expect((await run('agentmem --db memory.db stats --json')).json().total).toBe(2);

      // Restore pruned memories.
      await run('agentmem --db memory.db decay --dry-run --now 2036-01-01T00:00:00Z');
      expect(await total()).toBe(2);
      await run('agentmem --db memory.db decay --now 2036-01-01T00:00:00Z');
      expect(await total()).toBe(0);
      await run('agentmem --db memory.db export --out all.jsonl');
      const pruned = readFileSync(tmp.path('all.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      id = pruned.find((m: { content: string; prunedAt?: string }) => m.content.includes('ArgoCD') && m.prunedAt).id;
      await run('agentmem --db memory.db history ID');
      await run('agentmem --db memory.db restore ID');
      expect(await total()).toBe(1);

      // Recover from a damaged file: refused, store unchanged, salvage.
      writeFileSync(tmp.path('damaged.agentmem'), '');
      const refused = await run('agentmem --db memory.db diff damaged.agentmem', 1);
      expect(refused.stderr).toMatch(/^error \[NOT_A_SNAPSHOT\]: .*\n$/);
      await run('agentmem --db memory.db export --out salvage.jsonl');
      await run('agentmem --db fresh.db import salvage.jsonl');
      expect((await runCli(['--branch', 'main', '--db', tmp.path('fresh.db'), 'stats', '--json'])).json().total).toBe(
        1,
      );
    } finally {
      tmp.cleanup();
    }
  });

  it('switches embedders: a re-embed stopped midway, run again, embeds only what it had not done', async () => {
    const tmp = tempDir();
    const cohere = await new FakeCohereServer().start();
    const saved = { key: process.env.CO_API_KEY, url: process.env.AGENTMEM_COHERE_URL };
    process.env.CO_API_KEY = cohere.apiKey;
    process.env.AGENTMEM_COHERE_URL = cohere.url;
    /** Texts of the embed requests from `from` on that the fake answered (skipping the one it refused). */
    const embedded = (from: number, refused = -1) =>
      cohere.requests
        .slice(from)
        .filter((r, i) => r.path === '/v2/embed' && from + i !== refused)
        .flatMap((r) => r.body.texts as string[]);
    try {
      const facts = Array.from({ length: 1200 }, (_, i) => `Service ${i} deploys through pipeline ${i % 7}.`);
      seed(tmp, 'many.jsonl', facts);
      const imported = await runCli([
        '--branch',
        'main',
        '--db',
        tmp.path('memory.db'),
        'import',
        tmp.path('many.jsonl'),
      ]);
      expect(imported.code, imported.stderr).toBe(0);
      await step(tmp, 'agentmem --db memory.db snapshot reembed.agentmem');

      const merge = documented.find((l) => l.includes('--reembed'))!;
      // Cohere answers 6 calls (96 texts each: the first part of 500), then rate-limits for an hour: the run stops.
      cohere.failNext(...Array<'pass'>(6).fill('pass'), { status: 429, headers: { 'retry-after': '3600' } });
      const stopped = await step(tmp, merge, { expected: 1 });
      expect(stopped.stderr).toMatch(/^error \[RATE_LIMITED\]: .*\n$/);
      const first = embedded(0, 6);
      expect(first).toHaveLength(500);
      // The same command again embeds the 700 records the first run did not commit, and only those.
      const before = cohere.requests.length;
      const again = await step(tmp, merge, { again: true });
      const second = embedded(before);
      expect(second).toHaveLength(700);
      expect(new Set([...first, ...second])).toEqual(new Set(facts));
      expect(again.stdout).toContain('Skipped: 500 duplicates');

      const stats = (
        await step(tmp, 'agentmem --db cohere.db --embedder cohere:embed-english-light-v3.0 stats --json')
      ).json();
      expect(stats).toMatchObject({ total: 1200, embedder: { id: 'cohere:embed-english-light-v3.0:384' } });
      const recall = await step(
        tmp,
        'agentmem --db cohere.db --embedder cohere:embed-english-light-v3.0 recall deploys',
      );
      expect(recall.stdout).toContain('deploys through pipeline');
      // Without the new embedder the new store is refused rather than searched with the wrong vectors.
      const wrong = await runCli(['--branch', 'main', '--db', tmp.path('cohere.db'), 'stats']);
      expect(wrong.stderr).toMatch(/^error \[EMBEDDER_MISMATCH\]/);
    } finally {
      process.env.CO_API_KEY = saved.key;
      process.env.AGENTMEM_COHERE_URL = saved.url;
      if (saved.key === undefined) delete process.env.CO_API_KEY;
      if (saved.url === undefined) delete process.env.AGENTMEM_COHERE_URL;
      await cohere.stop();
      tmp.cleanup();
    }
  });

  describe('moving a store', () => {
    const stores = postgresStores(() => inject('pgliteUrl'));
    let qdrant: FakeQdrant | undefined;
    beforeAll(async () => {
      await waitForServer(inject('pgliteUrl'));
      locations.postgres = `${inject('pgliteUrl')}?schema=${stores.schema()}`;
      if (qdrantSpecAvailable) {
        qdrant = await FakeQdrant.start();
        locations.qdrant = `${qdrant.url}/collections/runbook`;
      }
    }, 180_000);
    afterAll(async () => {
      await stores.dropAll();
      await qdrant?.stop();
    });

    it(`from SQLite to Qdrant (fake Qdrant${qdrantSpecAvailable ? '' : `, ${SPEC_MISSING}`}) and to Postgres (PGlite): the same memories arrive`, async () => {
      const tmp = tempDir();
      const cli = (...argv: string[]) => runCli(['--branch', 'main', ...argv]);
      /** What must survive a move, per memory. */
      const contents = (jsonl: string) =>
        jsonl
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .map((m) => `${m.id} ${m.tenant} ${m.namespace} ${m.createdAt} ${m.content}`)
          .sort();
      try {
        seed(tmp, 'team.jsonl', ['Deploys go through ArgoCD.', 'Staging runs Kubernetes 1.29.']);
        seed(tmp, 'user.jsonl', ['Prefers answers in French.'], 'user');
        expect((await cli('--db', tmp.path('memory.db'), 'import', tmp.path('team.jsonl'))).code).toBe(0);
        expect(
          (await cli('--db', tmp.path('memory.db'), '--tenant', 'acme', 'import', tmp.path('user.jsonl'))).code,
        ).toBe(0);
        const local = contents((await cli('--db', tmp.path('memory.db'), 'export')).stdout);
        expect(local).toHaveLength(2);
        await step(tmp, 'agentmem --db memory.db snapshot move.agentmem');

        for (const [target, out] of [
          [QDRANT_DOC, 'qdrant.jsonl'],
          [POSTGRES_DOC, 'postgres.jsonl'],
        ] as const) {
          if (target === QDRANT_DOC && !qdrant) continue;
          await step(tmp, `agentmem --db ${target} merge move.agentmem --all-tenants --yes`);
          expect((await step(tmp, `agentmem --db ${target} stats --json`)).json().total).toBe(2);
          await step(tmp, `agentmem --db ${target} export --out ${out}`);
          expect(contents(readFileSync(tmp.path(out), 'utf8'))).toEqual(local);
          // Every tenant moved: the other tenant's memory is there, under its tenant only.
          const acme = await cli(
            '--db',
            target === QDRANT_DOC ? locations.qdrant : locations.postgres,
            '--tenant',
            'acme',
            'recall',
            'french',
            '--json',
          );
          expect(acme.json().results.map((r: { content: string }) => r.content)).toEqual([
            'Prefers answers in French.',
          ]);
        }
      } finally {
        tmp.cleanup();
      }
    }, 300_000);
  });

  it('ran every documented command, in the documented order', () => {
    expect(ran).toEqual(qdrantSpecAvailable ? documented : documented.filter((l) => !l.includes(QDRANT_DOC)));
  });
});
