export { DEFAULT_HALF_LIFE_HOURS, effectiveImportance, type HalfLifeConfig, halfLifeFor } from './half-life';
