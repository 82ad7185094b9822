import type { Memory } from '../contracts';

export interface ReinforcementOptions {
  /** Pending access updates are written at most this long after the recall that made them. Default 1000 ms. */
  flushIntervalMs?: number;
  /** Or as soon as this many memories wait. Default 1000. */
  maxPending?: number;
}

/** What recalls did to one memory since the last flush. */
export interface PendingAccess {
  id: string;
  tenant: string;
  /** Latest access, epoch ms. */
  at: number;
  /** Accesses since the last flush. */
  count: number;
}

/**
 * Write-behind for reinforcement: recall records which memories it returned
 * here (no write on the read path) and one batched write applies them later:
 * after `flushIntervalMs`, when `maxPending` memories wait, on `flush()` and
 * on close. A clean close loses nothing; a crash loses at most the accesses of
 * the last interval (or of up to `maxPending` memories). Until written, reads
 * of this process see them through `overlay`.
 */
export class ReinforcementBuffer {
  private pending = new Map<string, PendingAccess>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private failure: unknown;
  private readonly intervalMs: number;
  private readonly maxPending: number;

  constructor(
    private readonly write: (entries: PendingAccess[]) => Promise<void>,
    options: ReinforcementOptions = {},
  ) {
    this.intervalMs = options.flushIntervalMs ?? 1000;
    this.maxPending = options.maxPending ?? 1000;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Records one access of each memory at `at` (epoch ms) and updates the given copies to match. */
  add(memories: readonly Memory[], at: number): void {
    const iso = new Date(at).toISOString();
    for (const m of memories) {
      const entry = this.pending.get(m.id);
      if (entry) {
        entry.at = Math.max(entry.at, at);
        entry.count++;
      } else {
        this.pending.set(m.id, { id: m.id, tenant: m.tenant, at, count: 1 });
      }
      m.lastAccessedAt = iso;
      m.accessCount += 1;
    }
    if (this.pending.size >= this.maxPending) void this.flush().catch(() => {});
    else this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.pending.size === 0) return;
    // A timer that does not keep the process alive: close() (or flush()) writes what is left.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => {});
    }, this.intervalMs);
    this.timer.unref?.();
  }

  /** Whether an access to this memory waits to be written. */
  has(id: string): boolean {
    return this.pending.has(id);
  }

  /** A memory's last access (epoch ms): the stored one, or the access not written yet when later. */
  lastAccess(id: string, storedMs: number): number {
    const entry = this.pending.get(id);
    return entry && entry.at > storedMs ? entry.at : storedMs;
  }

  /** A stored copy of a memory with the accesses not written yet applied (in place; returns it). */
  overlay(memory: Memory): Memory {
    const entry = this.pending.get(memory.id);
    if (entry) {
      if (entry.at > Date.parse(memory.lastAccessedAt)) memory.lastAccessedAt = new Date(entry.at).toISOString();
      memory.accessCount += entry.count;
    }
    return memory;
  }

  /**
   * Writes every pending access (one batch). On failure the accesses stay
   * pending for the next flush and the error is thrown.
   */
  flush(): Promise<void> {
    const run = this.flushing.then(async () => {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      try {
        await this.write([...batch.values()]);
        this.failure = undefined;
      } catch (error) {
        // Put them back, merged with what arrived meanwhile, and retry later.
        for (const entry of batch.values()) {
          const newer = this.pending.get(entry.id);
          if (newer) {
            newer.at = Math.max(newer.at, entry.at);
            newer.count += entry.count;
          } else this.pending.set(entry.id, entry);
        }
        this.failure = error;
        this.schedule();
        throw error;
      }
    });
    this.flushing = run.catch(() => {});
    return run;
  }

  /** Flushes and stops the timer. */
  async close(): Promise<void> {
    await this.flush();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The error of the last failed flush, until one succeeds. */
  get lastError(): unknown {
    return this.failure;
  }
}
