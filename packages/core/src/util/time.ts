/** The last string toMillis parsed: a batch's records share their times (one clock reading per write). */
let lastText = '';
let lastMillis = Number.NaN;

/** Milliseconds since the epoch for an ISO string (or a Date / number). */
export function toMillis(value: string | number | Date): number {
  if (typeof value === 'number') return value;
  if (value instanceof Date) return value.getTime();
  if (value !== lastText) {
    lastMillis = Date.parse(value);
    lastText = value;
  }
  return lastMillis;
}

export function toIso(value: string | number | Date): string {
  return new Date(toMillis(value)).toISOString();
}
