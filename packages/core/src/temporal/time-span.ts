/**
 * A time a query names: a half-open interval of epoch milliseconds, or a
 * month of any year ("in June").
 */
export type TimeSpan = { kind: 'range'; start: number; end: number } | { kind: 'month'; month: number };
