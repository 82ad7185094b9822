export {
  CONFLICT_RESOLUTIONS,
  type Conflict,
  type ConflictCheckOptions,
  type ConflictCheckResult,
  type ConflictResolution,
  type ConflictSettings,
  conflictThreshold,
  DEFAULT_CONFLICT_THRESHOLD,
  findConflicts,
  rememberWithConflictCheck,
} from './conflict-check';
