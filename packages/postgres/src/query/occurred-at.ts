import { invalidInput } from '@agentmem/core';

/** The event times the occurred_at column holds: whole epoch milliseconds from 0001-01-01 to 9999-12-31 (UTC). */
export const MIN_OCCURRED_AT_MS = -62_135_596_800_000;
export const MAX_OCCURRED_AT_MS = 253_402_300_799_999;

/**
 * The occurred_at column of a record: its `occurredAt` attribute (epoch
 * milliseconds, as core writes it) as an ISO timestamp, or null without one.
 * Range filters on `occurredAt` compare this column, so a number the column
 * cannot hold exactly is refused rather than stored where filters miss it.
 */
export function occurredAtColumn(id: string, value: unknown): string | null {
  if (value === undefined || value === null || typeof value !== 'number') return null;
  if (!Number.isInteger(value) || value < MIN_OCCURRED_AT_MS || value > MAX_OCCURRED_AT_MS) {
    throw invalidInput(
      `Record ${id}: attribute occurredAt must be whole epoch milliseconds between years 1 and 9999, got ${value}.`,
      { id },
    );
  }
  return new Date(value).toISOString();
}

/**
 * A range bound on `occurredAt` (milliseconds, maybe fractional or out of
 * range) as a timestamptz literal that selects the same whole-millisecond
 * values: x >= 1.5 is x >= 2, x <= 1.5 is x <= 1; past the column's range,
 * ±infinity.
 */
export function occurredAtBound(op: 'gt' | 'gte' | 'lt' | 'lte', bound: number): string {
  const ms = op === 'gte' || op === 'lt' ? Math.ceil(bound) : Math.floor(bound);
  if (ms > MAX_OCCURRED_AT_MS) return 'infinity';
  if (ms < MIN_OCCURRED_AT_MS) return '-infinity';
  return new Date(ms).toISOString();
}
