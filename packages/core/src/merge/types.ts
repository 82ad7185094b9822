import type { BackendRecord, Memory, MemoryBackend } from '../contracts';

export type MergeStrategy = 'local_wins' | 'remote_wins' | 'newer_wins' | 'keep_both';
export const MERGE_STRATEGIES: readonly MergeStrategy[] = ['local_wins', 'remote_wins', 'newer_wins', 'keep_both'];

/** Where merged records come from: a snapshot file, another store or a branch of this one. */
export interface MergeSource {
  backend: MemoryBackend;
  /** Written as `mergedFrom` on every imported memory (snapshot path, branch name). */
  label: string;
  kind: 'snapshot' | 'branch' | 'store';
  /** The source's embedder; vectors are copied only when it equals the local one. */
  embedder: { id: string; dimension: number };
  /**
   * Throws CONFLICT when the source changed under a read that takes no lock (a snapshot file read in
   * place): called once the plan has read the source and before the apply commits.
   */
  assertUnchanged?: () => void;
}

export interface PlanOptions {
  /**
   * Source namespaces to merge (a trailing `*` matches a prefix, e.g.
   * `project:*`). Default: every memory namespace and the skills.
   */
  namespaces?: readonly string[];
  /** Where a source namespace lands locally (branch merges); default: the same namespace. */
  mapNamespace?: (namespace: string) => string;
  /** Every tenant of the source instead of the local store's tenant (administrative merges). */
  allTenants?: boolean;
  /** Called when the plan is complete. */
  onProgress?: (progress: MergeProgress) => void;
  /** Fast reader of memory keys for backends it recognises (`SnapshotFormat.readMemoryKeys`). */
  keyReader?: MemoryKeyReader;
  /** Fast reader of the source's records for the write policy (`SnapshotFormat.readSourceRecords`). */
  sourceReader?: SourceRecordReader;
}

/** What the plan compares of a record: no payload, no vector. */
export interface RecordKey {
  id: string;
  kind: string;
  namespace: string;
  tenant: string;
  /** Content hash (memories) or hash of text and payload (skills). */
  hash: string;
  /** Last change, epoch ms (0 when unknown). */
  updatedAt: number;
}

/**
 * Reads the keys of every memory record (kind `memory`) under a filter much
 * faster than full records, for a backend it recognises; `undefined` for
 * others (the plan then reads full records).
 */
export type MemoryKeyReader = (
  backend: MemoryBackend,
  filter: { tenant: string | null; namespaces: readonly string[] },
) => Promise<RecordKey[] | undefined>;

/**
 * Reads, page by page, the records the write policy checks (kind `memory`
 * or `skill` under a filter) for a backend it recognises, in any order;
 * `undefined` for others (the plan then scans through the contract). Each
 * record needs only what the policy reads: id, namespace, tenant,
 * `attributes.kind` and the payload (text, context and the other attributes
 * are derived again from the payload).
 */
export type SourceRecordReader = (
  backend: MemoryBackend,
  filter: { tenant: string | null; namespaces: readonly string[]; kinds: readonly string[] },
) => AsyncIterable<BackendRecord[]> | undefined;

export interface MergeProgress {
  phase: 'snapshot' | 'plan' | 'apply' | 'undo';
  done: number;
  total?: number;
}

/** One record of either side, as the plan compares it (no vector). */
export interface MergeEntry {
  id: string;
  kind: string;
  namespace: string;
  tenant: string;
  /** Content hash (memories) or hash of text and payload (skills). */
  hash: string;
  /** Last change, epoch ms (0 when unknown). */
  updatedAt: number;
  record: BackendRecord;
  /** Set for memory records. */
  memory?: Memory;
}

export interface PlannedImport {
  remote: MergeEntry;
  /** Namespace and id it gets locally. */
  targetNamespace: string;
  targetId: string;
}

export interface PlannedDuplicate {
  remoteId: string;
  localId: string;
  namespace: string;
  reason: 'same-id' | 'same-content';
}

export interface PlannedConflict {
  id: string;
  targetNamespace: string;
  local: MergeEntry;
  remote: MergeEntry;
  /** Which side changed last (`tie`: same updatedAt). */
  newer: 'local' | 'remote' | 'tie';
}

export interface MergePlan {
  source: { label: string; kind: MergeSource['kind']; embedder: { id: string; dimension: number } };
  /** Source namespaces that were compared. */
  namespaces: string[];
  imports: PlannedImport[];
  duplicates: PlannedDuplicate[];
  conflicts: PlannedConflict[];
  /** True when the source was built with another embedder (merge needs `reembed: true`). */
  embedderMismatch: boolean;
  /** How many source records were compared. */
  scanned: number;
  /**
   * Memories of the source that belong to tenants this merge does not cover (set for snapshot merges
   * without `allTenants`): they are neither compared nor merged.
   */
  otherTenants?: OtherTenants;
}

/** Memories a tenant-scoped merge leaves out, by tenant. */
export interface OtherTenants {
  /** The tenant the merge covers ('' is the default tenant). */
  tenant: string;
  memories: number;
  /** Tenant names ('' is the default tenant), sorted. */
  tenants: string[];
}

export interface ApplyOptions {
  /** Default `newer_wins` (ties keep local). */
  strategy?: MergeStrategy;
  /** Re-embed source contents with the local embedder when the embedders differ; otherwise refuse. */
  reembed?: boolean;
  /**
   * Commit every this many records as a merge of its own instead of all or
   * nothing. A run that fails midway (an embedding API's rate limit, a crash)
   * keeps the parts it committed, and the same merge run again plans those as
   * duplicates: it writes, and re-embeds, only the rest. Each part is undone
   * on its own (`mergeIds`). Default: one all-or-nothing merge.
   */
  commitEvery?: number;
  onProgress?: (progress: MergeProgress) => void;
  /** Test hook and audit: recorded in the merge record. */
  note?: string;
}
