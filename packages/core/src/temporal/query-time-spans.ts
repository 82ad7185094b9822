import { MONTH_NAMES, MONTH_PATTERN as MONTH, monthIndex, NUMBER_WORDS as NUMBERS } from './time-mentions';
import type { TimeSpan } from './time-span';

const DAY = 86_400_000;
const ORDINAL = '(?:st|nd|rd|th)?';
const UNIT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };
/** Every form of a month `MONTH` reads ("sept", "may.", "january") starts with one of these. */
const MONTH_STARTS = MONTH_NAMES.map((m) => m.slice(0, 3));

const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;
/** A day, one day either side: a question's date and the event's may sit on either side of midnight or a time zone. */
const aroundDay = (ms: number): Extract<TimeSpan, { kind: 'range' }> => ({
  kind: 'range',
  start: startOfDay(ms) - DAY,
  end: startOfDay(ms) + 2 * DAY,
});

/**
 * The times a query names, absolute ("8 May 2023", "May 8, 2023",
 * "2023-05-08", "May 2023", "in June", "between August 11 and August 15 2023") or relative to `now` ("yesterday",
 * "last week", "three months ago", "this year"). Empty when it names none.
 */
export function timeSpansInQuery(query: string, now: number): TimeSpan[] {
  const q = query.toLowerCase();
  const spans: TimeSpan[] = [];
  const taken: [number, number][] = [];
  const scan = (pattern: RegExp, toSpan: (m: RegExpExecArray) => TimeSpan | undefined) => {
    for (const m of q.matchAll(new RegExp(pattern.source, 'g'))) {
      const at = m.index ?? 0;
      if (taken.some(([s, e]) => at < e && at + m[0].length > s)) continue; // inside a longer date already read
      const span = toSpan(m as RegExpExecArray);
      if (span) {
        spans.push(span);
        taken.push([at, at + m[0].length]);
      }
    }
  };
  const day = (y: string, mo: number, d: string) => {
    const ms = Date.UTC(Number(y), mo, Number(d));
    return mo >= 0 && Number(d) >= 1 && Number(d) <= 31 && Number.isFinite(ms) ? aroundDay(ms) : undefined;
  };
  // Each pattern runs only on a query holding the words it cannot match without (a digit, a month,
  // "yesterday"...): most queries name no time, and a first search would otherwise compile every
  // pattern (~2 ms of a new process's first recall). A skipped pattern finds nothing: the same spans.
  const has = (...words: string[]) => words.some((w) => q.includes(w));
  const digit = /\d/.test(q);
  const month = has(...MONTH_STARTS);
  // A range of days ("between August 11 and August 15 2023", "from 3 to 7 May 2023"): the year (and the
  // month) may be written once, after the second day. Read first, so its days are not read alone.
  const dayOf = `(?:${MONTH}\\s+(\\d{1,2})${ORDINAL}|(\\d{1,2})${ORDINAL}(?:\\s+(?:of\\s+)?${MONTH})?)`;
  if (digit && has('between', 'from'))
    scan(
      new RegExp(
        `\\b(?:between|from)\\s+${dayOf}(?:,?\\s+(\\d{4}))?,?\\s+(?:and|to|until|till|through|-)\\s+${dayOf},?\\s+(\\d{4})\\b`,
      ),
      (m) => {
        // Groups: first day (month 1 or 4, day 2 or 3, year 5), second day (month 6 or 9, day 7 or 8, year 10).
        const endMonth = monthIndex(m[6] ?? m[9] ?? '');
        const startMonth = (m[1] ?? m[4]) !== undefined ? monthIndex((m[1] ?? m[4])!) : endMonth;
        const last = day(m[10]!, endMonth, (m[7] ?? m[8])!);
        // "between December 28 and January 3, 2023": a first day written without a year, after the last, is the year before.
        let first = day(m[5] ?? m[10]!, startMonth, (m[2] ?? m[3])!);
        if (first && last && m[5] === undefined && first.start > last.start)
          first = day(String(Number(m[10]) - 1), startMonth, (m[2] ?? m[3])!);
        return first && last && first.start <= last.start
          ? { kind: 'range', start: first.start, end: last.end }
          : undefined;
      },
    );
  if (digit) scan(/\b(\d{4})-(\d{2})-(\d{2})\b/, (m) => day(m[1]!, Number(m[2]) - 1, m[3]!));
  if (digit && month) {
    scan(new RegExp(`\\b(\\d{1,2})${ORDINAL}\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})\\b`), (m) =>
      day(m[3]!, monthIndex(m[2]!), m[1]!),
    );
    scan(new RegExp(`\\b${MONTH}\\s+(\\d{1,2})${ORDINAL},?\\s+(\\d{4})\\b`), (m) =>
      day(m[3]!, monthIndex(m[1]!), m[2]!),
    );
    scan(new RegExp(`\\b${MONTH},?\\s+(\\d{4})\\b`), (m) => {
      const mo = monthIndex(m[1]!);
      const y = Number(m[2]);
      return { kind: 'range', start: Date.UTC(y, mo, 1), end: Date.UTC(y, mo + 1, 1) };
    });
  }
  // A bare month only after a word that makes it a time ("may" alone is a verb).
  if (month)
    scan(new RegExp(`\\b(?:in|during|of|since|early|late|mid|last|this)[\\s-]+${MONTH}\\b`), (m) => ({
      kind: 'month',
      month: monthIndex(m[1]!),
    }));
  const today = startOfDay(now);
  if (has('yesterday')) scan(/\byesterday\b/, () => aroundDay(today - DAY));
  if (has('today', 'tonight', 'this morning')) scan(/\btoday\b|\btonight\b|\bthis morning\b/, () => aroundDay(today));
  const unit = has('week', 'month', 'year');
  if (unit)
    scan(/\b(last|past|previous|this)\s+(week|month|year)\b/, (m) => {
      const days = UNIT_DAYS[m[2]!]!;
      return m[1] === 'this'
        ? { kind: 'range', start: today - days * DAY, end: today + DAY }
        : { kind: 'range', start: today - 2 * days * DAY, end: today + DAY };
    });
  if ((unit || has('day')) && has('ago'))
    scan(/\b(\d+|a|an|one|two|three|four|five|six|ten)\s+(day|week|month|year)s?\s+ago\b/, (m) => {
      const n = NUMBERS[m[1]!] ?? Number(m[1]);
      const days = n * UNIT_DAYS[m[2]!]!;
      const slack = Math.max(1, Math.round(days / 4)) * DAY; // "three months ago" is not a day
      return { kind: 'range', start: today - days * DAY - slack, end: today - days * DAY + slack + DAY };
    });
  return spans;
}

/** Whether an instant falls in any of the spans. */
export function inTimeSpans(ms: number, spans: readonly TimeSpan[]): boolean {
  return spans.some((s) => (s.kind === 'range' ? ms >= s.start && ms < s.end : new Date(ms).getUTCMonth() === s.month));
}
