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
export { restoreMemory } from './restore';
