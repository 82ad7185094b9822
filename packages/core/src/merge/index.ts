export { type MergeRecordPayload, applyMerge, assertStrategy } from './apply';
export { type SerializedRecord, deserializeRecord, serializeRecord } from './codec';
export { MERGE_KIND, MERGEABLE_KINDS, MERGES_NAMESPACE, planMerge } from './plan';
export { DiffResult, type MergeCounts, MergeResult, otherTenantsNote, UndoResult } from './results';
export {
  createSnapshot,
  type OpenedSnapshot,
  openSnapshot,
  type SnapshotOptions,
  type SnapshotResult,
} from './snapshot';
export {
  SNAPSHOT_FORMAT_NAME,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_MANIFEST_KEY,
  type SnapshotFormat,
  type SnapshotManifest,
  type SnapshotWriter,
  type TeleportSettings,
} from './snapshot-format';
export { diffSnapshot, mergeSnapshot, type TeleportDiffOptions, type TeleportMergeOptions } from './teleport';
export type {
  ApplyOptions,
  MemoryKeyReader,
  MergeEntry,
  MergePlan,
  MergeProgress,
  MergeSource,
  MergeStrategy,
  OtherTenants,
  PlannedConflict,
  PlannedDuplicate,
  PlannedImport,
  PlanOptions,
  RecordKey,
  SourceRecordReader,
} from './types';
export { MERGE_STRATEGIES } from './types';
export { listMerges, type MergeInfo, undoMerge } from './undo';
