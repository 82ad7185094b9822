import { isMemoryType, MEMORY_TYPES, type MemoryType } from '@agentmem/core';
import { InvalidArgumentError, Option } from 'commander';

// Option parsers for commander: a bad value is a usage error (exit 2) naming what is allowed.

/** A parser of decimal whole numbers from `min` to `max`; anything else is refused with `expected`. */
export function wholeNumber(min: number, max: number, expected: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(expected);
    }
    return n;
  };
}

export const parsePositiveInt = wholeNumber(1, Number.MAX_SAFE_INTEGER, 'Expected a positive whole number.');

/** A TCP port; 0 asks the system for any free one. */
export const parsePort = wholeNumber(0, 65535, 'Expected a port number from 0 to 65535 (0: any free port).');

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An instant as the store's API takes it: epoch milliseconds (digits) or an
 * ISO 8601 date or date-time ("yesterday" or "March 1" are refused: Date.parse
 * would read some such strings and guess).
 */
export function parseNowOption(value: string): number | string {
  const text = value.trim();
  if (/^\d+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
  if (ISO_8601.test(text) && Number.isFinite(Date.parse(text))) return text;
  throw new InvalidArgumentError(
    'Expected ISO 8601 such as 2026-03-01 or 2026-03-01T00:00:00Z, or epoch milliseconds such as 1800000000000.',
  );
}

/**
 * An event time (`remember --at`): what core's `occurredAt` takes from a string, a date first and anything
 * Date.parse reads after it, so a mistake is a usage error naming the flag, not an error about `occurredAt`.
 */
export function parseAtOption(value: string): string {
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && Number.isFinite(Date.parse(text))) return text;
  throw new InvalidArgumentError(
    `Expected an ISO 8601 date or date-time such as 2023-05-08 or 2023-05-08T13:56:00Z, got ${JSON.stringify(value)}.`,
  );
}

/** Decimal only: `0x1`, `1e400`, `Infinity` and `''` are refused (Number() would read the first as 1). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function parseNumber(value: string): number {
  const n = Number(value);
  if (!DECIMAL.test(value.trim()) || !Number.isFinite(n)) {
    throw new InvalidArgumentError(`Expected a decimal number such as 0.7, got ${JSON.stringify(value)}.`);
  }
  return n;
}

/** A number from 0 to 1 (importance). */
export function parseFraction(value: string): number {
  const n = DECIMAL.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError(`Expected a decimal number from 0 to 1 such as 0.7, got ${JSON.stringify(value)}.`);
  }
  return n;
}

/** "a, b,,c" → ["a", "b", "c"] */
export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function parseTypes(value: string): MemoryType[] {
  const types = parseList(value);
  const bad = types.filter((t) => !isMemoryType(t));
  if (types.length === 0 || bad.length > 0) {
    throw new InvalidArgumentError(`Use a comma-separated list of ${MEMORY_TYPES.join(', ')}.`);
  }
  return types as MemoryType[];
}

/** The spelling that makes `keep-both`, `keep_both` and `Keep-Both` one value. */
const choiceKey = (value: string) => value.trim().toLowerCase().replaceAll('_', '-');

/**
 * An option with a fixed set of values (listed in its help), taking each with hyphens or underscores,
 * whichever the value is documented with: `--on-conflict keep_both` and `--strategy newer-wins` work.
 * Anything else is a usage error that lists the values.
 */
export function choiceOption<T extends string>(flags: string, description: string, allowed: readonly T[]): Option {
  return new Option(flags, description).choices(allowed).argParser((value: string): T => {
    const found = allowed.find((a) => choiceKey(a) === choiceKey(value));
    if (found === undefined) throw new InvalidArgumentError(`Allowed choices are ${allowed.join(', ')}.`);
    return found;
  });
}
