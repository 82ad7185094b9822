import { AsyncLocalStorage } from 'node:async_hooks';

/** One open transaction or savepoint, as seen by the async code running inside it. */
export interface TransactionFrame {
  readonly gate: TransactionGate;
  /** The connection (backend) that opened it. */
  readonly owner: object;
  open: boolean;
  /** Serialises nested transactions started from this frame. */
  children: Promise<void>;
  /** The outermost frame of this one's transaction (itself when it is the outermost). */
  readonly root: TransactionFrame | undefined;
  /**
   * On the outermost frame: whether a write may have changed the transaction (set by the backend).
   * Until one does, a write inside needs no savepoint of its own (see SqliteBackend's write).
   */
  wrote: boolean;
}

const frames = new AsyncLocalStorage<TransactionFrame>();

/**
 * better-sqlite3 is synchronous but `transaction(fn)` takes an async function,
 * so other async work of this process can run while the transaction is open,
 * on the same connection. The gate makes that work wait until the transaction
 * ends (else it would be committed or rolled back with it), while calls made
 * from inside the transaction (found through AsyncLocalStorage) go straight
 * through. One gate per database file in this process: two backends on one
 * file share it, so they never deadlock each other on SQLite's write lock.
 */
export class TransactionGate {
  private active: { frame: TransactionFrame; done: Promise<void> } | undefined;

  /** The frame of the transaction the caller runs inside, on this gate, if any. */
  current(): TransactionFrame | undefined {
    const frame = frames.getStore();
    return frame?.open && frame.gate === this ? frame : undefined;
  }

  /** Resolves when no transaction the caller is outside of is open. */
  async idle(): Promise<void> {
    while (this.active && this.current() === undefined) await this.active.done;
  }

  get busy(): boolean {
    return this.active !== undefined;
  }

  /**
   * Runs `fn` as the one transaction of this gate: waits for the previous one,
   * then `begin()`, `fn` (inside the frame), and `end(ok)`.
   */
  async exclusive<T>(owner: object, begin: () => void, fn: () => Promise<T>, end: (ok: boolean) => void): Promise<T> {
    while (this.active) await this.active.done;
    let release!: () => void;
    const frame: TransactionFrame = {
      gate: this,
      owner,
      open: true,
      children: Promise.resolve(),
      root: undefined,
      wrote: false,
    };
    this.active = { frame, done: new Promise<void>((r) => (release = r)) };
    try {
      return await runInFrame(frame, begin, fn, end);
    } finally {
      this.active = undefined;
      release();
    }
  }

  /** Runs `fn` as a nested step of `parent`, one at a time per parent. */
  async nested<T>(
    parent: TransactionFrame,
    begin: () => void,
    fn: () => Promise<T>,
    end: (ok: boolean) => void,
  ): Promise<T> {
    const previous = parent.children;
    let release!: () => void;
    parent.children = new Promise<void>((r) => (release = r));
    await previous;
    const frame: TransactionFrame = {
      gate: this,
      owner: parent.owner,
      open: true,
      children: Promise.resolve(),
      root: parent.root ?? parent,
      wrote: false,
    };
    try {
      return await runInFrame(frame, begin, fn, end);
    } finally {
      release();
    }
  }
}

const gates = new Map<string, { gate: TransactionGate; refs: number }>();

/** The gate of a database file in this process (`undefined` key: a private in-memory database). */
export function acquireGate(key: string | undefined): TransactionGate {
  if (key === undefined) return new TransactionGate();
  const entry = gates.get(key) ?? { gate: new TransactionGate(), refs: 0 };
  entry.refs++;
  gates.set(key, entry);
  return entry.gate;
}

export function releaseGate(key: string | undefined): void {
  if (key === undefined) return;
  const entry = gates.get(key);
  if (entry && --entry.refs <= 0) gates.delete(key);
}

/** `begin()`, `fn` inside the frame, `end(ok)`; the frame is closed whatever happens. */
async function runInFrame<T>(
  frame: TransactionFrame,
  begin: () => void,
  fn: () => Promise<T>,
  end: (ok: boolean) => void,
): Promise<T> {
  try {
    begin();
    const result = await frames.run(frame, fn);
    end(true);
    return result;
  } catch (error) {
    end(false);
    throw error;
  } finally {
    frame.open = false;
  }
}
