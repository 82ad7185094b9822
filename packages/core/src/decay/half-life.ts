import type { MemoryType } from '../contracts';

/** Default half-life of importance: one week. */
export const DEFAULT_HALF_LIFE_HOURS = 168;

export type HalfLifeConfig = number | Partial<Record<MemoryType, number>>;

export function halfLifeFor(type: MemoryType, config: HalfLifeConfig | undefined): number {
  if (config === undefined) return DEFAULT_HALF_LIFE_HOURS;
  if (typeof config === 'number') return config;
  return config[type] ?? DEFAULT_HALF_LIFE_HOURS;
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
