export {
  DEFAULT_HALF_LIFE_HOURS,
  effectiveImportance,
  type HalfLifeConfig,
  halfLifeFor,
  pruneInstant,
  validateHalfLife,
} from './half-life';
