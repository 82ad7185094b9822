import type { MemoryType } from '../contracts';
import { invalidInput } from '../errors';

/** Default half-life of importance: one week. */
export const DEFAULT_HALF_LIFE_HOURS = 168;

/** Hours, one number for every type or per type; `Infinity` turns decay off (for that type). */
export type HalfLifeConfig = number | Partial<Record<MemoryType, number>>;

export function halfLifeFor(type: MemoryType, config: HalfLifeConfig | undefined): number {
  if (config === undefined) return DEFAULT_HALF_LIFE_HOURS;
  if (typeof config === 'number') return config;
  return config[type] ?? DEFAULT_HALF_LIFE_HOURS;
}

/** Throws unless every half-life in the config is a positive number of hours (or Infinity). */
export function validateHalfLife(config: HalfLifeConfig | undefined): void {
  if (config === undefined) return;
  const values = typeof config === 'number' ? [['', config] as const] : Object.entries(config);
  if (typeof config !== 'number' && (config === null || typeof config !== 'object')) {
    throw invalidInput('halfLifeHours must be a number of hours or an object of hours per memory type.');
  }
  for (const [type, hours] of values) {
    if (typeof hours !== 'number' || Number.isNaN(hours) || hours <= 0) {
      throw invalidInput(
        `halfLifeHours${type ? `.${type}` : ''} must be a positive number of hours (Infinity: never decays), got ${JSON.stringify(hours)}.`,
      );
    }
  }
}

/**
 * `importance * 2^(-elapsedHours / halfLifeHours)`, elapsed since the last
 * access. A pure function of time: it never compounds, however often it runs.
 */
export function effectiveImportance(
  importance: number,
  lastAccessMs: number,
  nowMs: number,
  halfLifeHours: number,
): number {
  if (!Number.isFinite(halfLifeHours) || halfLifeHours <= 0) return importance;
  const elapsedHours = Math.max(0, nowMs - lastAccessMs) / 3_600_000;
  return importance * 2 ** (-elapsedHours / halfLifeHours);
}

/**
 * The instant (ms) at which the effective importance falls to `threshold`:
 * `lastAccess + halfLife * log2(importance / threshold)` hours, never before
 * the last access. Infinity when the memory never decays.
 */
export function pruneInstant(
  importance: number,
  lastAccessMs: number,
  halfLifeHours: number,
  threshold: number,
): number {
  if (!Number.isFinite(halfLifeHours) || halfLifeHours <= 0) return Number.POSITIVE_INFINITY;
  if (importance <= threshold) return lastAccessMs;
  return Math.floor(lastAccessMs + halfLifeHours * Math.log2(importance / threshold) * 3_600_000);
}
