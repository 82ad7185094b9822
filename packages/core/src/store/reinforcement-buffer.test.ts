import { describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../backends';
import type { RecordPatch } from '../contracts';
import { MemoryStore } from './memory-store';

/** Counts the patches that reach the backend (reinforcement is the only patch recall makes). */
class CountingBackend extends InMemoryBackend {
  patches = 0;
  failNext = false;
  override async patch(patches: readonly RecordPatch[]): Promise<number> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk full');
    }
    this.patches += patches.length;
    return super.patch(patches);
  }
}

async function setup(options: ConstructorParameters<typeof MemoryStore>[0]['reinforcement'] = {}) {
  const backend = new CountingBackend();
  const store = await MemoryStore.open({ backend, reinforcement: options });
  const [a, b] = await store.rememberMany([
    { content: 'The staging cluster runs Kubernetes 1.30', type: 'project' },
    { content: 'Deploys go out on Tuesdays', type: 'project' },
  ]);
  const stored = async (id: string) => (await MemoryStore.open({ backend })).get(id); // a reader without the buffer
  return { backend, store, a: a!, b: b!, stored };
}

describe('reinforcement write-behind', () => {
  it('recall writes nothing; its own reads see the access; close writes every access', async () => {
    const { backend, store, a, stored } = await setup({ flushIntervalMs: 60_000 });
    const [first] = await store.recall('kubernetes staging', { k: 1 });
    const [second] = await store.recall('kubernetes staging', { k: 1 });
    expect(first?.memory.id).toBe(a.id);
    expect(second?.memory.accessCount).toBe(2);
    expect(backend.patches).toBe(0);
    expect((await store.get(a.id))?.accessCount).toBe(2);
    expect((await stored(a.id))?.accessCount).toBe(0);
    await store.close();
    backend['closed' as never] = false as never; // read what close() wrote
    const after = await stored(a.id);
    expect(after?.accessCount).toBe(2);
    expect(after?.lastAccessedAt).toBe(second?.memory.lastAccessedAt);
  });

  it('flushes when maxPending memories wait, and after flushIntervalMs', async () => {
    const bySize = await setup({ maxPending: 2, flushIntervalMs: 60_000 });
    await bySize.store.recall('kubernetes staging deploys tuesdays', { k: 2 });
    await bySize.store.flushReinforcement(); // waits for the flush the second access started
    expect(bySize.backend.patches).toBe(2);
    expect((await bySize.stored(bySize.b.id))?.accessCount).toBe(1);

    const byTime = await setup({ flushIntervalMs: 20 });
    await byTime.store.recall('kubernetes staging', { k: 1 });
    expect(byTime.backend.patches).toBe(0);
    // The timer fires by itself (no flush call); a loaded machine may run it late.
    await expect.poll(async () => (await byTime.stored(byTime.a.id))?.accessCount).toBe(1);
  });

  it('keeps the accesses of a failed flush and writes them with the next', async () => {
    const { backend, store, a, stored } = await setup({ flushIntervalMs: 60_000 });
    await store.recall('kubernetes staging', { k: 1 });
    backend.failNext = true;
    await expect(store.flushReinforcement()).rejects.toThrow('disk full');
    await store.recall('kubernetes staging', { k: 1 });
    await store.flushReinforcement();
    expect((await stored(a.id))?.accessCount).toBe(2);
  });

  it('never undoes a change written after the recall', async () => {
    const { store, a, backend } = await setup({ flushIntervalMs: 60_000 });
    await store.recall('kubernetes staging', { k: 1 });
    const writer = await MemoryStore.open({ backend });
    await writer.update(a.id, { content: 'The staging cluster runs Kubernetes 1.31' });
    await store.flushReinforcement();
    const now = await writer.get(a.id);
    expect(now?.content).toBe('The staging cluster runs Kubernetes 1.31');
    expect(now?.accessCount).toBe(1);
  });
});
