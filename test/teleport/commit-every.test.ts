import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentMemoryError, type EmbedOptions, type EmbedResult } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { createSqliteMemory } from '@agentmem/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fullState } from './helpers';

/** Records every text it embeds; the call numbered `failOn` (1-based) fails like a rate-limited API. */
class MeteredEmbedder extends FakeEmbedder {
  readonly embedded: string[] = [];
  embedCalls = 0;
  failOn = Number.POSITIVE_INFINITY;
  override async embed(texts: readonly string[], options: EmbedOptions): Promise<EmbedResult> {
    if (++this.embedCalls === this.failOn) throw new Error('429 Too Many Requests');
    this.embedded.push(...texts);
    return super.embed(texts, options);
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentmem-commit-every-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('merge { reembed, commitEvery }: a retried run pays only for the rest', () => {
  it('keeps the parts committed before a failure; the same merge again re-embeds only the others; each part undoes', async () => {
    const facts = Array.from({ length: 7 }, (_, i) => `Service ${i} deploys on day ${i}`);
    const remote = await createSqliteMemory({
      path: join(dir, 'old.db'),
      embedder: new FakeEmbedder({ id: 'old-model', dimension: 16 }),
    });
    await remote.rememberMany(facts.map((content) => ({ content, type: 'project' as const })));
    await remote.snapshot(join(dir, 'old.agentmem'));
    await remote.close();

    const embedder = new MeteredEmbedder({ id: 'new-model', dimension: 32 });
    const local = await createSqliteMemory({ path: join(dir, 'new.db'), embedder });
    const empty = await fullState(local.backend);
    const snapshot = join(dir, 'old.agentmem');

    const refused = await local.merge(snapshot, { reembed: true, commitEvery: 0 }).catch((e: unknown) => e);
    expect(AgentMemoryError.hasCode(refused, 'INVALID_INPUT')).toBe(true);
    expect(await fullState(local.backend)).toEqual(empty);

    embedder.failOn = 2; // the second part's embedding call
    await expect(local.merge(snapshot, { reembed: true, commitEvery: 3 })).rejects.toThrow('429');
    expect(embedder.embedded).toHaveLength(3);
    expect((await local.stats()).total).toBe(3);

    embedder.failOn = Number.POSITIVE_INFINITY;
    const first = [...embedder.embedded];
    const result = await local.merge(snapshot, { reembed: true, commitEvery: 3 });
    const second = embedder.embedded.slice(first.length);
    expect(second).toHaveLength(4);
    expect(new Set([...first, ...second])).toEqual(new Set(facts));
    expect(result.counts).toMatchObject({ imported: 4, duplicates: 3, reembedded: 4 });
    expect(result.mergeIds).toHaveLength(2);
    expect(result.mergeId).toBe(result.mergeIds[1]);
    expect(result.summary()).toContain('Committed in 2 merges');
    expect((await local.stats()).total).toBe(7);

    // Every part is a merge of its own: undoing them all (and the first run's) leaves the store as it began.
    for (const merge of await local.listMerges()) if (merge.status === 'applied') await local.undoMerge(merge.id);
    expect((await local.stats()).total).toBe(0);
    await local.close();
  });
});
