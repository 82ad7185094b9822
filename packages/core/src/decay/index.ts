export {
  type ApplyDecayOptions,
  applyDecay,
  DEFAULT_PRUNE_THRESHOLD,
  type DecayReport,
  type DecaySettings,
  parseInstant,
  validatePruneThreshold,
} from './apply-decay';
export { type CompactOptions, type CompactReport, compactPruned } from './compact';
export {
  DEFAULT_HALF_LIFE_HOURS,
  effectiveImportance,
  type HalfLifeConfig,
  halfLifeFor,
  pruneInstant,
  validateHalfLife,
} from './half-life';
export { restoreMemory } from './restore';
