/**
 * The store the kill-point trials cut into, shared by the parent (which builds
 * it and reads what a kill left) and the child (which runs the operation).
 */
import { AgentMemory, type BackendRecord, HashingEmbedder, KIND, type MemoryBackend } from '@agentmem/core';

/** Larger than every page and write batch of decay and compact (1,000): SQLite. */
export const KILL_POINT_SIZE = 6_000;
/**
 * Qdrant: the fake server reads a page of ids by comparing each with every
 * stored point, so 6,000 memories (and their history) take minutes of the
 * suite; three pages and batches show the same cuts.
 */
export const QDRANT_KILL_POINT_SIZE = 2_500;
export const FAR_FUTURE = '2036-01-01T00:00:00Z';
/** One in ten memories is a user memory that never decays; decay at FAR_FUTURE prunes the others. */
export const KILL_POINT_SETTINGS = { dimension: 64, halfLifeHours: { user: Number.POSITIVE_INFINITY } } as const;

const WRITES = new Set(['upsert', 'patch', 'patchLogged', 'delete']);

/**
 * Runs decay (at FAR_FUTURE) or compact through the public API, calling
 * `afterWrite(n)` after the nth write call to the backend returned and
 * `beforeClose()` once the operation returned. Returns how many writes it made.
 */
export async function runOperation(
  backend: MemoryBackend,
  operation: string,
  hooks: { afterWrite?: (n: number) => void; beforeClose?: () => void } = {},
): Promise<number> {
  let writes = 0;
  const counted = new Proxy(backend, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (typeof key !== 'string' || !WRITES.has(key)) return value.bind(target);
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        writes++;
        hooks.afterWrite?.(writes);
        return result;
      };
    },
  });
  const memory = new AgentMemory({
    backend: counted,
    embedder: new HashingEmbedder({ dimension: KILL_POINT_SETTINGS.dimension }),
    halfLifeHours: KILL_POINT_SETTINGS.halfLifeHours,
  });
  try {
    if (operation === 'decay') await memory.applyDecay({ now: FAR_FUTURE });
    else if (operation === 'compact') await memory.compact();
    else throw new Error(`unknown operation ${operation}`);
    hooks.beforeClose?.();
    return writes;
  } finally {
    await memory.close();
  }
}

/** Fills an empty backend with the trial's memories through the public API. */
export async function fillStore(backend: MemoryBackend, size: number): Promise<void> {
  const memory = new AgentMemory({
    backend,
    embedder: new HashingEmbedder({ dimension: KILL_POINT_SETTINGS.dimension }),
    halfLifeHours: KILL_POINT_SETTINGS.halfLifeHours,
    now: () => Date.parse('2026-01-01T00:00:00Z'),
  });
  try {
    for (let start = 0; start < size; start += 1000) {
      await memory.rememberMany(
        Array.from({ length: Math.min(1000, size - start) }, (_, j) => {
          const i = start + j;
          return {
            content: `fact ${i}: service ${i % 17} listens on port ${3000 + i}`,
            type: i % 10 === 0 ? ('user' as const) : ('project' as const),
            importance: 0.3 + (i % 7) / 10,
          };
        }),
      );
    }
  } finally {
    await memory.close();
  }
}

/** Every memory (status, prune instant, content) and every memory's history actions: what "the state" is here. */
export interface StoreState {
  memories: Map<string, string>;
  history: Map<string, string[]>;
}

/** The state of these records (as a backend returns them, or as a server stores them). */
export function stateOf(
  records: Iterable<{ id: string; attributes: Record<string, unknown>; payload: Record<string, unknown> }>,
): StoreState {
  const memories = new Map<string, string>();
  const history = new Map<string, string[]>();
  for (const r of records) {
    const p = r.payload as { prunedAt?: string; content?: string };
    if (r.attributes.kind === KIND.memory)
      memories.set(r.id, `${r.attributes.status} ${p.prunedAt ?? ''} ${p.content}`);
    else if (r.attributes.kind === KIND.history) {
      const id = String(r.attributes.memoryId);
      history.set(id, [...(history.get(id) ?? []), String(r.attributes.action)].sort());
    }
  }
  return { memories, history };
}

/** The state of a backend, read through the contract. */
export async function readState(backend: MemoryBackend): Promise<StoreState> {
  const records: BackendRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.scan({ filter: { tenant: null }, cursor, limit: 1000, withVectors: false });
    records.push(...page.records);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return stateOf(records);
}

/** How many memories differ between two states (their record or their history). */
export function differences(a: StoreState, b: StoreState): number {
  let n = 0;
  for (const id of new Set([...a.memories.keys(), ...b.memories.keys(), ...a.history.keys(), ...b.history.keys()])) {
    if (a.memories.get(id) !== b.memories.get(id) || String(a.history.get(id)) !== String(b.history.get(id))) n++;
  }
  return n;
}

/**
 * What a cut pass may leave without transactions (docs/reliability.md): each
 * memory whole (pruned or deleted only with its entry) and no entry twice.
 * Returns the problems found.
 */
export function wholeMemories(state: StoreState, known: Iterable<string>): string[] {
  const problems: string[] = [];
  const count = (id: string, action: string) => (state.history.get(id) ?? []).filter((a) => a === action).length;
  for (const id of known) {
    const status = state.memories.get(id);
    for (const action of ['prune', 'compact']) {
      if (count(id, action) > 1) problems.push(`${id} has ${count(id, action)} ${action} entries`);
    }
    if (status?.startsWith('pruned') && count(id, 'prune') !== 1) problems.push(`${id} pruned without its entry`);
    if (status === undefined && count(id, 'compact') !== 1) problems.push(`${id} deleted without its entry`);
  }
  return problems;
}
