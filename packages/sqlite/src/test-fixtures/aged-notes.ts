// The store two SQLite recall tests start from (search/partial-hits, read/vectors): notes of a small
// vocabulary in two tenants, some a year older, pruned by decay with the changes still pending in the log.
import { AgentMemory, type Embedder, type Memory, type MemoryBackend } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';

export const HOUR = 3_600_000;
export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const WORDS = [
  'kafka',
  'broker',
  'deploy',
  'staging',
  'cluster',
  'latency',
  'budget',
  'review',
  'schema',
  'backup',
];

export interface AgedNotesOptions {
  seed: number;
  /** The clock the memories read; left a year and a day after T0. */
  clock: { now: number };
  embedder?: Embedder;
  /** Text after note i's six words. */
  suffix?: (i: number) => string;
  type?: (i: number) => 'project' | 'user';
  /** Run in each tenant after its recent notes are written. */
  afterRecent?: (memory: AgentMemory, created: readonly Memory[]) => Promise<void>;
}

/**
 * 400 notes of six words of WORDS (each query's keyword pool of 50 is full), the last quarter in tenant
 * 'acme'; one in seven of low importance and written a year before the rest. A day after the recent
 * ones, decay prunes the old ones (changes pending in the log, which reads merge in). Returns how many
 * decay pruned.
 */
export async function seedAgedNotes(backend: MemoryBackend, options: AgedNotesOptions): Promise<number> {
  const { clock, embedder } = options;
  const random = seededRandom(options.seed);
  const inputs = Array.from({ length: 400 }, (_, i) => ({
    content:
      `note ${i}: ${Array.from({ length: 6 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')}` +
      (options.suffix?.(i) ?? ''),
    type: options.type?.(i) ?? ('project' as const),
    importance: i % 7 === 0 ? 0.05 : 0.3 + random() * 0.7,
  }));
  const old = (i: number) => i % 7 === 0;
  const memory = (tenant: string) => new AgentMemory({ backend, embedder, now: () => clock.now, tenant });
  for (const [tenant, part] of [
    ['', inputs.slice(0, 300)],
    ['acme', inputs.slice(300)],
  ] as const) {
    const m = memory(tenant);
    clock.now = T0;
    await m.rememberMany(part.filter((_, i) => old(i)));
    clock.now = T0 + 364 * 24 * HOUR;
    const created = await m.rememberMany(part.filter((_, i) => !old(i)));
    await options.afterRecent?.(m, created);
  }
  clock.now = T0 + 365 * 24 * HOUR;
  return (await memory('').applyDecay()).pruned;
}
