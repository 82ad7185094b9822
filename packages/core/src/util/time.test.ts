import { describe, expect, it } from 'vitest';
import { toMillis } from './time';

describe('toMillis', () => {
  it('parses each string anew when strings alternate, and takes numbers and Dates as they are', () => {
    const a = '2023-05-08T13:56:00.000Z';
    const b = '2024-01-01T00:00:00Z';
    for (const text of [a, a, b, a, b, b, 'not a date', a]) expect(toMillis(text)).toEqual(Date.parse(text));
    expect(toMillis(5)).toBe(5);
    expect(toMillis(new Date(a))).toBe(Date.parse(a));
  });
});
