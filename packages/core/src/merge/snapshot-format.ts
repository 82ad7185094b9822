import type { MemoryBackend } from '../contracts';
import type { MemoryKeyReader, SourceRecordReader } from './types';

/** Meta key under which a snapshot file keeps its manifest (JSON). */
export const SNAPSHOT_MANIFEST_KEY = 'snapshot.manifest';
/** Bumped when a snapshot written by this version cannot be read by an older one. */
export const SNAPSHOT_FORMAT_VERSION = 1;
export const SNAPSHOT_FORMAT_NAME = 'agentmem-snapshot';

/** What a snapshot file says about itself. */
export interface SnapshotManifest {
  format: typeof SNAPSHOT_FORMAT_NAME;
  formatVersion: number;
  embedder: { id: string; dimension: number };
  createdAt: string;
  sourceAgentId?: string;
  /** `provider` of the backend the snapshot was taken from. */
  sourceBackend: string;
  /** Records per kind at snapshot time (memories, skills, history, merges) and in total. */
  counts: { total: number; memories: number; skills: number; history: number; merges: number };
}

/** A snapshot being written: fill `backend`, then `commit` (or `abort` on failure). */
export interface SnapshotWriter {
  backend: MemoryBackend;
  /** Makes the file appear at its path, complete; closes the backend. */
  commit(): Promise<void>;
  /** Removes everything written so far; closes the backend. */
  abort(): Promise<void>;
}

/**
 * The file format snapshots are written in, pluggable so that core needs no
 * storage package: `@agentmem/sqlite` exports `sqliteSnapshotFormat` (one
 * SQLite file that also opens as an ordinary store). Any backend can be
 * snapshotted into any format: the copy goes through the MemoryBackend contract.
 */
export interface SnapshotFormat {
  readonly id: string;
  /** Starts a new snapshot file at `path` (refuses an existing file unless `overwrite`). */
  create(path: string, options: { dimension: number; overwrite?: boolean }): Promise<SnapshotWriter>;
  /**
   * Opens an existing snapshot for reading, after checking it is one: a file
   * that is not a database, a foreign database or a damaged one fails with
   * NOT_A_DATABASE / CORRUPT_SNAPSHOT and is left untouched.
   */
  open(path: string): Promise<MemoryBackend>;
  /**
   * Optional fast path: a point-in-time copy of `source` made by the storage
   * itself (SQLite: `VACUUM INTO`) when the format recognises the backend;
   * `undefined` means "copy through the MemoryBackend contract".
   */
  copyOf?(
    source: MemoryBackend,
    path: string,
    options: { dimension: number; overwrite?: boolean },
  ): Promise<SnapshotWriter | undefined>;
  /**
   * Optional, for a format that reads files in place without locks: true when the file behind a
   * backend `open` returned was written since (by another process). A merge that read it then is
   * refused with CONFLICT and writes nothing.
   */
  changedSinceOpen?(backend: MemoryBackend): boolean;
  /** Optional fast path for merge plans: memory keys read without payloads, from backends of this format. */
  readMemoryKeys?: MemoryKeyReader;
  /** Optional fast path for merge plans: the source records the write policy checks, from backends of this format. */
  readSourceRecords?: SourceRecordReader;
}

/** Options of `createAgentMemory` for teleport. */
export interface TeleportSettings {
  /** File format of `snapshot()`, `diff()` and `merge()`; `createSqliteMemory` passes `sqliteSnapshotFormat`. */
  snapshotFormat?: SnapshotFormat;
}
