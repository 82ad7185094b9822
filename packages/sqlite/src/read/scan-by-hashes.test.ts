import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendRecord, InMemoryBackend, type MemoryBackend, type RecordFilter } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';

/** Every page of a scan, as ids (the cursor followed to the end). */
async function pages(backend: MemoryBackend, filter: RecordFilter, limit: number): Promise<string[][]> {
  const out: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.scan({ filter, cursor, limit });
    out.push(page.records.map((r) => r.id));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out;
}

describe('scan by a list of content hashes (the duplicate check of a write)', () => {
  let dir: string;
  let sqlite: SqliteBackend;
  let memory: InMemoryBackend;
  const hashes = Array.from({ length: 40 }, (_, i) => `hash-${i.toString(36)}`);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentmem-scan-hashes-'));
    sqlite = new SqliteBackend({ path: join(dir, 'memory.db') });
    memory = new InMemoryBackend();
    const random = seededRandom(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    // Hashes shared across tenants, namespaces and kinds; some records without one, or with a number.
    const records: BackendRecord[] = Array.from({ length: 600 }, (_, i) => {
      const attributes: BackendRecord['attributes'] = { kind: pick(['memory', 'memory', 'history']) };
      const roll = random();
      if (roll < 0.85) attributes.contentHash = pick(hashes);
      else if (roll < 0.9) attributes.contentHash = 7;
      return {
        id: `r${Math.floor(random() * 1e9).toString(36)}-${i}`,
        namespace: pick(['user', 'project']),
        tenant: pick(['', 'acme']),
        text: `record ${i}`,
        attributes,
        payload: { i },
      };
    });
    for (const backend of [sqlite, memory]) {
      await backend.init({ dimension: 4 });
      await backend.upsert(records);
    }
  });

  afterEach(async () => {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds what the in-memory backend finds, page by page, with repeats, absent hashes and other conditions', async () => {
    const lists = [
      hashes.slice(0, 10),
      [...hashes.slice(5, 15), ...hashes.slice(5, 15), 'absent-1', 'absent-2'],
      ['absent-1', 'absent-2'],
      [hashes[3]!, hashes[3]!],
      hashes,
    ];
    for (const list of lists) {
      const filters: RecordFilter[] = [
        { tenant: '', namespaces: ['user'], where: { kind: 'memory', contentHash: { in: list } } },
        { tenant: 'acme', where: { contentHash: { in: list } } },
        { tenant: null, namespaces: ['user', 'project'], where: { contentHash: { in: list }, kind: { ne: 'memory' } } },
      ];
      for (const filter of filters) {
        for (const limit of [3, 500]) {
          const got = await pages(sqlite, filter, limit);
          expect(got).toEqual(await pages(memory, filter, limit));
        }
      }
    }
  });

  it('leaves lists with numbers to the usual form (a number never equals a hash string)', async () => {
    const filter: RecordFilter = { tenant: null, where: { contentHash: { in: [7, hashes[0]!] } } };
    expect(await pages(sqlite, filter, 500)).toEqual(await pages(memory, filter, 500));
  });
});
