import {
  type BackendRecord,
  createAgentMemory,
  InMemoryBackend,
  type AgentMemoryOptions,
  type MemoryBackend,
  type MergeSource,
} from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';

/** Every record (all tenants, with vectors) and the meta the store keeps, as plain comparable data. */
export async function fullState(backend: MemoryBackend) {
  const records: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.scan({ filter: { tenant: null }, cursor, limit: 97, withVectors: true });
    for (const r of page.records) records.push({ ...r, vector: r.vector ? Array.from(r.vector) : null });
    cursor = page.cursor;
  } while (cursor !== undefined);
  return { records, embedder: await backend.getMeta('embedder.id') };
}

export function clock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let t = start;
  const now = () => t;
  now.set = (iso: string) => {
    t = Date.parse(iso);
  };
  return now;
}

export async function memoryStore(options: Partial<AgentMemoryOptions> = {}) {
  return createAgentMemory({ backend: new InMemoryBackend(), embedder: new FakeEmbedder(), ...options });
}

export function sourceOf(
  store: { backend: MemoryBackend; embedder: { id: string; dimension: number } },
  label = 'remote',
): MergeSource {
  return {
    backend: store.backend,
    label,
    kind: 'store',
    embedder: { id: store.embedder.id, dimension: store.embedder.dimension },
  };
}

/** Passes everything through, but the n-th upsert (1-based) throws: a failure midway through a write. */
export class FailingBackend extends InMemoryBackend {
  upserts = 0;
  failOn = Number.POSITIVE_INFINITY;
  /** After the injected failure every write fails too (a server that went away), until set back to false. */
  down = false;
  staysDown = false;
  override async upsert(records: readonly BackendRecord[]): Promise<void> {
    this.upserts++;
    if (this.down) throw new Error('injected outage');
    if (this.upserts === this.failOn) {
      this.down = this.staysDown;
      throw new Error(`injected failure on upsert ${this.upserts}`);
    }
    return super.upsert(records);
  }
  override async delete(ids: readonly string[]): Promise<number> {
    if (this.down) throw new Error('injected outage');
    return super.delete(ids);
  }
}
