/** Milliseconds since the epoch for an ISO string (or a Date / number). */
export function toMillis(value: string | number | Date): number {
  if (typeof value === 'number') return value;
  if (value instanceof Date) return value.getTime();
  return Date.parse(value);
}

export function toIso(value: string | number | Date): string {
  return new Date(toMillis(value)).toISOString();
}
