import type { AttributePage } from './attribute-page';
import type { AttributeScanOptions } from './attribute-scan-options';
import type { BackendCapabilities } from './backend-capabilities';
import type { BackendInitOptions } from './backend-init-options';
import type { BackendRecord } from './backend-record';
import type { LinkKeysOptions, LinkKeysPage } from './link-keys-page';
import type { LinkedKey, LinkQuery } from './link-query';
import type { LoggedPatches } from './logged-patches';
import type { NamespaceCount } from './namespace-count';
import type { OptimizeOptions } from './optimize-options';
import type { OptimizeReport } from './optimize-report';
import type { RecordFilter } from './record-filter';
import type { RecordPatch } from './record-patch';
import type { ScanOptions, ScanPage } from './scan-page';
import type { SearchHit } from './search-hit';
import type { SearchRequest } from './search-request';

/**
 * The storage-agnostic contract (v1). Every backend passes the conformance
 * suite in `@agentmem/core/testing`.
 */
export interface MemoryBackend {
  readonly specificationVersion: 'v1';
  /** e.g. `memory`, `sqlite`, `qdrant`. */
  readonly provider: string;
  readonly capabilities: BackendCapabilities;

  /** Create or open storage for vectors of this dimension; refuses a different one. Idempotent. */
  init(options: BackendInitOptions): Promise<void>;
  /** Insert or overwrite whole records, atomically for the batch where the backend can. */
  upsert(records: readonly BackendRecord[]): Promise<void>;
  /** Partial updates; unknown ids are ignored. Returns how many records changed. */
  patch(patches: readonly RecordPatch[]): Promise<number>;
  /**
   * Optional: compare-and-set patches that set attributes and payload keys,
   * each with a log record holding a copy of the new payload (`LoggedPatches`),
   * all or nothing. Returns the ids changed: an unknown id, or one whose
   * `expect` no longer holds, is left alone and gets no log record. For
   * maintenance passes over many records (decay's prune), where reading and
   * rewriting whole payloads is most of the cost. Core falls back to `get` +
   * `patch` + `upsert` when a backend has no such method.
   */
  patchLogged?(batch: LoggedPatches): Promise<string[]>;
  /** Records by id, in no particular order; `tenant` (when a string) hides other tenants' records. */
  get(ids: readonly string[], options?: { tenant?: string | null; withVectors?: boolean }): Promise<BackendRecord[]>;
  /**
   * Optional: the stored vectors of these records, by id (a record without one, or hidden by
   * `tenant` as in `get`, is left out), without reading the records themselves. Recall with a
   * lexical embedder scores its keyword candidates' own vectors, where reading whole records was
   * most of the cost. Core falls back to `get` with vectors when a backend has no such method.
   */
  vectors?(ids: readonly string[], options?: { tenant?: string | null }): Promise<Map<string, Float32Array>>;
  /** Returns how many records were deleted. */
  delete(ids: readonly string[]): Promise<number>;
  /** Every matching record, page by page in id order, however many there are. */
  scan(options: ScanOptions): Promise<ScanPage>;
  /**
   * Optional: every matching record's id, scope and attributes (no text,
   * payload or vector), page by page in an order of the backend's choosing,
   * each record once (a record written while the pages are read may come
   * again: SQLite moves a pending log record when a write folds it); `cursor`
   * is opaque. For passes over the whole store
   * (decay) where reading whole records is most of the cost. Core falls back
   * to `scan` when a backend has no such method. `attributes` may narrow
   * what each record carries.
   */
  scanAttributes?(options: AttributeScanOptions): Promise<AttributePage>;
  search(request: SearchRequest): Promise<SearchHit[]>;
  count(filter: RecordFilter): Promise<number>;
  namespaces(options?: { tenant?: string | null }): Promise<NamespaceCount[]>;
  /** Small key/value metadata about the store itself (embedder id, format version). */
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /**
   * Optional (with `capabilities.links`): per key, how many records in scope
   * link to it and the first `limit` of their ids, in id order. An index
   * lookup: recall calls it twice per query, so it must not cost a search.
   * Keys no record links to come back with count 0. Links go with their
   * record: a delete removes them, an upsert replaces them.
   */
  linked?(query: LinkQuery): Promise<LinkedKey[]>;
  /** Optional (with `capabilities.links`): every entity key in scope with its record count, page by page in key order. */
  linkKeys?(options: LinkKeysOptions): Promise<LinkKeysPage>;
  /**
   * Optional: an opaque mark of the stored records that changes whenever a record may have been
   * written since, by this instance or any other writer of the same storage (equal marks compare
   * with `===`). Core takes one before a read and another inside its transaction: equal, the read
   * still holds and is not made again (`rememberMany`'s duplicate check). Omitted: read again.
   */
  writeMark?(): Promise<string>;
  /**
   * Optional: a maintenance step that leaves the storage ready for fast first searches: finishes
   * index builds left to later searches, saves in-storage indexes so that a new process's first
   * search has no logged change to catch up on, and tidies the storage (`vacuum`: rewrites it
   * compactly). Bounded transactions: a crash mid-way keeps the work done. A backend without
   * such state (in-memory, Postgres, Qdrant: their indexes are kept up to date by the server or
   * live in the process) omits it; `MemoryStore.optimize` then returns undefined.
   */
  optimize?(options?: OptimizeOptions): Promise<OptimizeReport>;
  /** All or nothing (when `capabilities.transactions`). */
  transaction?<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
