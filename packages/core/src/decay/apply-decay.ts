import type { AttributeValue, JsonObject, Memory, RecordFilter } from '../contracts';
import { invalidInput } from '../errors';
import type { MemoryStore } from '../store/memory-store';
import { KIND, recordToMemory, statusOf } from '../store/codec';
import { toMillis } from '../util';
import { effectiveImportance, type HalfLifeConfig, halfLifeFor, pruneInstant, validateHalfLife } from '../importance';
import { maintenancePass } from './maintenance-pass';

/** Effective importance below which a memory is pruned (the tombstone threshold). */
export const DEFAULT_PRUNE_THRESHOLD = 0.05;

/** Store-wide decay settings (AgentMemory options). */
export interface DecaySettings {
  /** Half-life in hours, one number or per type. Default 168 (one week). */
  halfLifeHours?: HalfLifeConfig;
  /** Prune memories whose effective importance falls below this (0..1). Default 0.05. */
  pruneThreshold?: number;
}

export interface ApplyDecayOptions {
  /** The instant to decay to (default: the store's clock). A Date, epoch ms or an ISO string. */
  now?: Date | number | string;
  /** Compute the report, write nothing. */
  dryRun?: boolean;
  /**
   * Called every 1,000 memories scanned (`total`: the active memories when the pass began) and after
   * each page's prunes are written (`done` = `total` = pruned so far: the scan finds them as it goes).
   */
  onProgress?: (progress: { phase: 'scan' | 'prune'; done: number; total: number }) => void;
}

export interface DecayReport {
  /** Active memories examined (superseded and already pruned ones are skipped). */
  scanned: number;
  /** Effective importance below the stored importance, still at or above the threshold: they stay, ranked lower. */
  decayed: number;
  /** Fell below the threshold: pruned by this run (or would be, in a dry run). */
  pruned: number;
  /** No time elapsed since the last access, or decay is off for their type (or another writer changed them during the run). */
  untouched: number;
  durationMs: number;
  dryRun: boolean;
  /** The instant decayed to (ISO). */
  now: string;
  threshold: number;
}

/** Memories read (and pruned) per page: keeps statements and request bodies small enough for every backend. */
const PAGE = 1000;
const PROGRESS_EVERY = 1000;

export function validatePruneThreshold(threshold: unknown): number {
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0 || threshold >= 1) {
    throw invalidInput(
      `pruneThreshold must be a number from 0 (never prune) to below 1, got ${JSON.stringify(threshold)}.`,
    );
  }
  return threshold;
}

export function parseInstant(value: Date | number | string, name = 'now'): number {
  const ms =
    value instanceof Date || typeof value === 'number' || typeof value === 'string' ? toMillis(value) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw invalidInput(
      `${name} must be a Date, epoch milliseconds or an ISO 8601 string, got ${JSON.stringify(value)}.`,
    );
  }
  return ms;
}

/** What a memory's fate depends on (with `status`, which the scan filters on). */
const DECIDING_ATTRIBUTES = ['importance', 'lastAccessedAt', 'type'] as const;

/**
 * One pass over every active memory of every tenant, type and namespace.
 * Stored importance is never rewritten: the effective importance is computed
 * from it and the time since the last access, so the outcome depends only on
 * `now` (not on how often decay runs). Memories that fell below the threshold
 * get `prunedAt` = the instant they crossed it (again independent of the run
 * schedule) and a `prune` history entry, in batched writes, all in one
 * transaction where the backend has them (else resumable: see maintenancePass).
 */
export async function applyDecay(
  store: MemoryStore,
  settings: DecaySettings,
  options: ApplyDecayOptions = {},
): Promise<DecayReport> {
  const started = performance.now();
  validateHalfLife(settings.halfLifeHours);
  const threshold = validatePruneThreshold(settings.pruneThreshold ?? DEFAULT_PRUNE_THRESHOLD);
  if (options === null || typeof options !== 'object') throw invalidInput('applyDecay() takes { now?, dryRun? }.');
  const nowMs = options.now === undefined ? Date.now() : parseInstant(options.now);
  await store.init();
  // Decay reads lastAccessedAt from the backend: the accesses recall buffered count too.
  if (!options.dryRun) await store.flushReinforcement();

  const maintenance = maintenancePass(store);
  const report = { scanned: 0, decayed: 0, pruned: 0, untouched: 0 };
  /** A memory's effective importance at `now`, from its attributes, and since when it is below the threshold. */
  const assess = (attributes: Record<string, unknown>) => {
    const importance = attributes.importance as number;
    const lastAccess = attributes.lastAccessedAt as number;
    const halfLife = halfLifeFor(attributes.type as Memory['type'], settings.halfLifeHours);
    const effective = effectiveImportance(importance, lastAccess, nowMs, halfLife);
    const below = Number.isFinite(halfLife) && effective < threshold;
    return {
      importance,
      effective,
      prunedAt: below ? Math.min(nowMs, pruneInstant(importance, lastAccess, halfLife, threshold)) : undefined,
    };
  };
  /** What the scan read of a memory to prune: enough to prune it without reading it again. */
  type Candidate = {
    id: string;
    tenant: string;
    attributes: Record<string, AttributeValue>;
    prunedAt: number;
  };
  // Administrative pass: every tenant (tenant: null), active memories only.
  const filter: RecordFilter = { tenant: null, where: { kind: KIND.memory, status: 'active' } };
  const progress = options.onProgress;
  const total = progress ? await store.backend.count(filter) : 0;
  const detail = `effective importance below ${threshold} at ${new Date(nowMs).toISOString()}`;
  /** Changed by another writer since the scan so that it no longer qualifies: left alone. */
  const leftAlone = (n: number) => {
    report.pruned -= n;
    report.untouched += n;
  };
  /** Reads the memories again and prunes those that still qualify (the path for every backend). */
  const pruneByReading = async (ids: readonly string[]) => {
    if (ids.length === 0) return;
    const fresh = await store.backend.get(ids, { tenant: null, withVectors: false });
    const batch: Memory[] = [];
    for (const record of fresh) {
      // With the accesses this process's recalls buffered since (other processes write theirs within their
      // flush interval).
      const stored = recordToMemory(record);
      const attributes = {
        ...record.attributes,
        lastAccessedAt: store.lastAccess(stored.id, toMillis(stored.lastAccessedAt)),
      };
      const at = record.attributes.status === 'active' ? assess(attributes).prunedAt : undefined;
      if (at === undefined) continue;
      batch.push({ ...stored, prunedAt: new Date(at).toISOString() });
    }
    leftAlone(ids.length - batch.length);
    // History first: without transactions, a pass cut short leaves no memory pruned without its entry.
    // A memory whose create entry is implied keeps its marker: a prune only sets prunedAt, and the
    // record without it still implies the entry (see HISTORY_PENDING).
    await store.recordHistory(
      batch.map((memory) => ({
        memory,
        action: 'prune' as const,
        detail,
        id: maintenance.entryId(memory.id, 'prune', memory.prunedAt!),
      })),
    );
    // Only `status` among the filterable attributes changes: patching just it keeps index updates cheap.
    await store.backend.patch(
      batch.map((m) => ({ id: m.id, attributes: { status: statusOf(m) }, payload: m as unknown as JsonObject })),
    );
  };
  const patchLogged = store.backend.patchLogged?.bind(store.backend);
  /** One page's prunes, in the caller's transaction. */
  const prune = async (candidates: readonly Candidate[]) => {
    if (!patchLogged) return pruneByReading(candidates.map((c) => c.id));
    // Stamped when the batch is written, as recordHistory stamps the reading path's entries.
    const history = store.historyLog('prune', detail);
    // Without reading them again: each is pruned only if the attributes it was judged on are still
    // the stored ones (a recall, update or supersede since the scan changes them), and its history
    // entry gets the stored memory copied in by the backend. Memories with accesses buffered in this
    // process, and those whose attributes changed, go the reading path (judged again).
    const direct = candidates.filter((c) => !store.hasBufferedAccess(c.id));
    // One call a page (the scan's memo still holds the stored values: the backend compares without SQL),
    // marked memories included: they keep the marker (see pruneByReading).
    const pruned = new Set(
      await patchLogged({
        patches: direct.map((c) => ({
          id: c.id,
          expect: {
            status: 'active',
            // An attribute the scan did not find is compared as missing (null), as the contract reads it.
            importance: c.attributes.importance ?? null,
            lastAccessedAt: c.attributes.lastAccessedAt ?? null,
            type: c.attributes.type ?? null,
          },
          payload: { prunedAt: new Date(c.prunedAt).toISOString() },
          logId: history.newEntryId(),
        })),
        attributes: { status: 'pruned' },
        log: history.log,
      }),
    );
    await pruneByReading(candidates.filter((c) => !pruned.has(c.id)).map((c) => c.id));
  };
  /** Scans one page and, unless dry, prunes what it found: the cursor of the next page. */
  const step = async (cursor: string | undefined) => {
    // Attributes only (importance, last access, type): text, payload and vectors stay unread.
    const page = await store.attributePage(filter, cursor, DECIDING_ATTRIBUTES, PAGE);
    const candidates: Candidate[] = [];
    for (const record of page.records) {
      report.scanned++;
      if (progress && (report.scanned % PROGRESS_EVERY === 0 || report.scanned === total)) {
        progress({ phase: 'scan', done: report.scanned, total });
      }
      let attributes = record.attributes;
      const stored = attributes.lastAccessedAt;
      // A later access that a recall of this process has not written yet counts (a dry run reports what a
      // run would do; a run judges such a memory again when it prunes, with the same access).
      if (typeof stored === 'number') {
        const accessed = store.lastAccess(record.id, stored);
        if (accessed !== stored) attributes = { ...attributes, lastAccessedAt: accessed };
      }
      const { importance, effective, prunedAt } = assess(attributes);
      if (prunedAt !== undefined) {
        report.pruned++;
        candidates.push({ id: record.id, tenant: record.tenant, attributes: record.attributes, prunedAt });
      } else if (effective < importance) report.decayed++;
      else report.untouched++;
    }
    if (candidates.length > 0 && !options.dryRun) {
      await prune(candidates);
      progress?.({ phase: 'prune', done: report.pruned, total: report.pruned });
    }
    return page.cursor;
  };
  // Page by page, the whole pass in one transaction: all pruned or none (a kill, a failed write), and
  // nothing else writes between a page's read and its prunes (a backend can then check the expected
  // attributes without reading them again). Other writers wait for the pass (docs/reliability.md).
  const pass = async () => {
    let cursor: string | undefined;
    do cursor = await step(cursor);
    while (cursor !== undefined);
  };
  await (options.dryRun ? pass() : maintenance.run(pass));
  return {
    ...report,
    durationMs: performance.now() - started,
    dryRun: options.dryRun === true,
    now: new Date(nowMs).toISOString(),
    threshold,
  };
}
