/**
 * Times as people write them ("yesterday", "last Friday", "two years ago",
 * "next month", "on the 15th", "8 May 2023"), resolved against the moment the
 * words were written: a turn said on 8 May 2023 that says "yesterday" means
 * 7 May 2023. Days are UTC days, weeks start on Monday (ISO 8601), seasons are
 * the northern hemisphere's meteorological ones (summer: June to August).
 */

export type TimeUnit = 'day' | 'week' | 'month' | 'year';

/** One time expression found in a text, resolved to a half-open span of epoch milliseconds. */
export interface TimeMention {
  /** The words as written, lower case ("last friday"). */
  text: string;
  /** Where the words start in the text. */
  index: number;
  start: number;
  end: number;
  /** How precise the words are: a day, a week, a month or a year. */
  unit: TimeUnit;
}

const DAY = 86_400_000;
export const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
] as const;
const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
/** A month name or its usual abbreviation ("sept" too), with an optional full stop. */
export const MONTH_PATTERN = `(${MONTH_NAMES.join('|')}|${MONTH_NAMES.map((m) => m.slice(0, 3)).join('|')}|sept)\\.?`;
const WEEKDAY_PATTERN = '(sunday|monday|tuesday|wednesday|thursday|friday|saturday|mon|tues?|wed|thurs?|fri|sat|sun)';
const ORDINAL = '(?:st|nd|rd|th)?';
/** Numbers people write as words in time expressions ("a couple of weeks", "a few days"). */
export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  couple: 2,
  'a couple': 2,
  'a couple of': 2,
  few: 3,
  'a few': 3,
  several: 3,
};
const COUNT =
  '(\\d{1,3}|a couple of|a couple|a few|several|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)';
const UNIT = '(day|week|weekend|month|year)s?';
/** Words that make a bare weekday, date or month a future one ("I'll see her on Friday"). */
const FUTURE =
  /\b(will|won't|shall|going to|gonna|plan|plans|planning|can't wait|cannot wait|looking forward|next|upcoming|soon|tomorrow|until)\b|['’]ll\b/;
/**
 * What a text holds that some pattern needs, one bit a kind (`timeCues`): each pattern runs only on a
 * text with its cues, and a text with none (most texts) skips them all. A cue is looser than what
 * the pattern matches (a word starting "wee" for "week"), never stricter, so the matches are the same.
 */
const CUE_DIGIT = 1;
/** A word starting with a month's first three letters ("may", "sept"). */
const CUE_MONTH = 2;
/** A word starting "day", "wee", "mon" or "yea". */
const CUE_UNIT = 4;
const CUE_SEASON = 8;
/** A word starting with a weekday's first three letters, or glued to a word before it ("onfriday"). */
const CUE_WEEKDAY = 16;
/** "yesterday" or "last night" anywhere ("last night" is matched without a word start before it). */
const CUE_YESTERDAY = 32;
/** "today", "tonight" or "this " anywhere. */
const CUE_TODAY = 64;
const CUE_TOMORROW = 128;

const key3 = (a: number, b: number, c: number) => (a << 16) | (b << 8) | c;
const code3 = (word: string) => key3(word.charCodeAt(0), word.charCodeAt(1), word.charCodeAt(2));
/** Cues by a word's first three letters. */
const WORD_CUES = new Map<number, number>();
const cue = (words: string, bit: number) => {
  for (const w of words.split(' ')) WORD_CUES.set(code3(w), (WORD_CUES.get(code3(w)) ?? 0) | bit);
};
cue('jan feb mar apr may jun jul aug sep oct nov dec', CUE_MONTH);
cue('day wee mon yea', CUE_UNIT);
cue('spr sum aut fal win', CUE_SEASON);
cue('sun mon tue wed thu fri sat', CUE_WEEKDAY);
/**
 * The weekday pattern's words before a weekday, by their first three letters ("on" apart): "\b(last|…|on)?\s*"
 * lets the weekday follow them without a space ("lastfriday"), where it starts no word.
 */
const WEEKDAY_BEFORE = new Map(['last', 'next', 'past', 'coming', 'this'].map((w) => [code3(w), w] as const));

/** A `\w` character (ASCII letters, digits, underscore), as the patterns' `\b` reads words. */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || (c >= 65 && c <= 90);
}

/**
 * The code of `lower`'s character at `i`, or 0 past its end: where `charCodeAt`'s NaN went into `key3`
 * (`NaN << 8` is 0) or an `===` with a letter (false), 0 gives the same. A read past the end made V8
 * throw `timeCues`' compiled code away ("out of bounds") and compile it again, three times a fresh 20k ingest.
 */
function codeAt(lower: string, i: number): number {
  return i < lower.length ? lower.charCodeAt(i) : 0;
}

function weekdayAt(lower: string, i: number): boolean {
  return ((WORD_CUES.get(key3(codeAt(lower, i), codeAt(lower, i + 1), codeAt(lower, i + 2))) ?? 0) & CUE_WEEKDAY) !== 0;
}

/** The cues of a lower-case text, in one pass over its characters (run only on the few texts ANY_CUE passes). */
function timeCues(lower: string): number {
  let cues = 0;
  let inWord = false;
  for (let i = 0, n = lower.length; i < n; i++) {
    const c = lower.charCodeAt(i);
    if (c >= 48 && c <= 57) cues |= CUE_DIGIT;
    const word = isWordCode(c);
    if (word && !inWord && c >= 97 && c <= 122) {
      const k = key3(c, codeAt(lower, i + 1), codeAt(lower, i + 2));
      cues |= WORD_CUES.get(k) ?? 0;
      const before = WEEKDAY_BEFORE.get(k);
      if (before !== undefined && lower.startsWith(before, i) && weekdayAt(lower, i + before.length))
        cues |= CUE_WEEKDAY;
      else if (c === 111 && codeAt(lower, i + 1) === 110 && weekdayAt(lower, i + 2)) cues |= CUE_WEEKDAY; // "on"
    }
    inWord = word;
  }
  if (lower.includes('yesterday') || lower.includes('last night')) cues |= CUE_YESTERDAY;
  if (lower.includes('today') || lower.includes('tonight') || lower.includes('this ')) cues |= CUE_TODAY;
  if (lower.includes('tomorrow')) cues |= CUE_TOMORROW;
  return cues;
}

/** A weekday's first three letters. */
const WEEKDAY3 = '(?:sun|mon|tue|wed|thu|fri|sat)';
/**
 * Cheap test before the cues and patterns: a text without a match (nor "tonight", which the pattern
 * matches without a word start before it) has no time expression. Every match of a pattern holds,
 * at a word start, a digit, "night", a part of the day ("this morning") or a word starting one of
 * these (a weekday also glued to the word before it, "onfriday", as the weekday pattern reads it).
 * Words grouped by their first letter after one `\b`, so that most positions fail at one character.
 */
const ANY_CUE = new RegExp(
  `\\b(?:\\d|d(?:ay|ec)|e(?:vening)|w(?:eek|ed|inter)|m(?:onth|ar|ay|on|orning)|y(?:ear|esterday)|s(?:pring|ummer|ep|un|at)|a(?:utumn|pr|ug|fternoon)|f(?:all|eb|ri)|j(?:an|un|ul)|o(?:ct|n${WEEKDAY3})|n(?:ov|ight|ext${WEEKDAY3})|t(?:oday|omorrow|ue|hu|his${WEEKDAY3})|last${WEEKDAY3}|past${WEEKDAY3}|coming${WEEKDAY3})`,
);
/** The patterns' old pre-check: see `timeMentions` for where it still decides. */
const ANY_TIME = new RegExp(
  `\\d|day|tonight|week|month|year|morning|evening|afternoon|night|ago|summer|winter|spring|autumn|fall|${MONTH_NAMES.map((m) => m.slice(0, 3)).join('|')}|${WEEKDAY_NAMES.map((d) => d.slice(0, 3)).join('|')}`,
);

const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;
/** Monday of the ISO week holding `day` (a start of day). */
const mondayOf = (day: number) => day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
const dayOf = (name: string) => WEEKDAY_NAMES.findIndex((d) => d.startsWith(name.slice(0, 3)));
export const monthIndex = (name: string): number =>
  MONTH_NAMES.findIndex((m) => m.startsWith(name.toLowerCase().replace('.', '').slice(0, 3)));
const count = (word: string) => NUMBER_WORDS[word] ?? Number(word);

function span(start: number, end: number, unit: TimeUnit) {
  return { start, end, unit };
}
const daySpan = (day: number) => span(day, day + DAY, 'day');
const weekSpan = (monday: number) => span(monday, monday + 7 * DAY, 'week');
function monthSpan(year: number, month: number) {
  return span(Date.UTC(year, month, 1), Date.UTC(year, month + 1, 1), 'month');
}
const yearSpan = (year: number) => span(Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1), 'year');
/** Saturday and Sunday of the weekend `at` is in, or of the coming one on a weekday. */
function weekendOf(day: number) {
  const weekday = new Date(day).getUTCDay();
  const saturday = weekday === 6 ? day : weekday === 0 ? day - DAY : day + (6 - weekday) * DAY;
  return span(saturday, saturday + 2 * DAY, 'day');
}
/** Meteorological seasons (northern hemisphere): the first month of each. */
const SEASON_START: Readonly<Record<string, number>> = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 };

/** A day, month and year that exist, as a day span. */
function calendarDay(year: number, month: number, day: number) {
  if (month < 0 || day < 1 || day > 31) return undefined;
  const ms = Date.UTC(year, month, day);
  return new Date(ms).getUTCDate() === day ? daySpan(ms) : undefined;
}

interface Context {
  today: number;
  year: number;
  month: number;
  weekday: number;
  /** Whether the sentence around the match speaks of the future. */
  future: () => boolean;
}

type Span = { start: number; end: number; unit: TimeUnit };
/** A pattern, what it resolves a match to, and the cues a text needs for it to match (all of them). */
type Rule = [RegExp, (m: RegExpExecArray, c: Context) => Span | undefined, number];

// A day and month without a year: the nearest such date before `at` (after it in a future sentence).
function dayAndMonth(mo: number, d: number, c: Context): Span | undefined {
  const ahead = c.future();
  for (const y of ahead ? [c.year, c.year + 1] : [c.year, c.year - 1]) {
    const s = calendarDay(y, mo, d);
    if (s && (ahead ? s.start >= c.today : s.start <= c.today)) return s;
  }
  return undefined;
}

/** `n` units before (-1) or after (1) today, at the unit's precision. */
function shifted(n: number, unit: string, sign: 1 | -1, c: Context): Span {
  switch (unit) {
    case 'day':
      return daySpan(c.today + sign * n * DAY);
    case 'week':
      return weekSpan(mondayOf(c.today + sign * n * 7 * DAY));
    case 'weekend': {
      const w = weekendOf(c.today);
      return span(w.start + sign * n * 7 * DAY, w.end + sign * n * 7 * DAY, 'day');
    }
    case 'month':
      return monthSpan(c.year, c.month + sign * n);
    default:
      return yearSpan(c.year + sign * n);
  }
}

const UNIT_DAYS: Readonly<Record<string, number>> = { day: 1, week: 7, weekend: 7, month: 30, year: 365 };
const rule = (needs: number, pattern: string, resolve: Rule[1]): Rule => [
  new RegExp(`\\b${pattern}\\b`, 'g'),
  resolve,
  needs,
];

/** The patterns, longest and most absolute first: a match inside an earlier one is not read again. */
const RULES: readonly Rule[] = [
  rule(CUE_DIGIT, '(\\d{4})-(\\d{2})-(\\d{2})', (m) => calendarDay(Number(m[1]), Number(m[2]) - 1, Number(m[3]))),
  rule(CUE_DIGIT | CUE_MONTH, `(\\d{1,2})${ORDINAL}\\s+(?:of\\s+)?${MONTH_PATTERN},?\\s+(\\d{4})`, (m) =>
    calendarDay(Number(m[3]), monthIndex(m[2]!), Number(m[1])),
  ),
  rule(CUE_DIGIT | CUE_MONTH, `${MONTH_PATTERN}\\s+(\\d{1,2})${ORDINAL},?\\s+(\\d{4})`, (m) =>
    calendarDay(Number(m[3]), monthIndex(m[1]!), Number(m[2])),
  ),
  rule(CUE_DIGIT | CUE_MONTH, `${MONTH_PATTERN},?\\s+(\\d{4})`, (m) => monthSpan(Number(m[2]), monthIndex(m[1]!))),
  rule(CUE_DIGIT | CUE_MONTH, `(\\d{1,2})${ORDINAL}\\s+(?:of\\s+)?${MONTH_PATTERN}`, (m, c) =>
    dayAndMonth(monthIndex(m[2]!), Number(m[1]), c),
  ),
  rule(CUE_DIGIT | CUE_MONTH, `${MONTH_PATTERN}\\s+(\\d{1,2})${ORDINAL}(?!\\d|:)`, (m, c) =>
    dayAndMonth(monthIndex(m[1]!), Number(m[2]), c),
  ),
  rule(CUE_YESTERDAY, 'the day before yesterday', (_, c) => daySpan(c.today - 2 * DAY)),
  rule(CUE_TOMORROW, 'the day after tomorrow', (_, c) => daySpan(c.today + 2 * DAY)),
  rule(CUE_YESTERDAY, 'yesterday|last night', (_, c) => daySpan(c.today - DAY)),
  rule(CUE_TODAY, 'today|tonight|this (?:morning|afternoon|evening)', (_, c) => daySpan(c.today)),
  rule(CUE_TOMORROW, 'tomorrow', (_, c) => daySpan(c.today + DAY)),
  rule(CUE_UNIT, 'the other day', (_, c) => span(c.today - 7 * DAY, c.today, 'week')),
  // "this past weekend", "the coming week", "last month", "next year".
  rule(CUE_UNIT, '(last|this past|past|previous|this|this coming|coming|next) (week|weekend|month|year)', (m, c) => {
    const step = m[1] === 'this' ? 0 : /past|last|previous/.test(m[1]!) ? -1 : 1;
    const past = m[1] === 'past';
    switch (m[2]) {
      case 'week':
        return past ? span(c.today - 7 * DAY, c.today, 'week') : weekSpan(mondayOf(c.today) + step * 7 * DAY);
      case 'weekend':
        return shifted(Math.abs(step), 'weekend', step < 0 ? -1 : 1, c);
      case 'month':
        return past ? span(c.today - 30 * DAY, c.today, 'month') : monthSpan(c.year, c.month + step);
      default:
        return past ? span(c.today - 365 * DAY, c.today, 'year') : yearSpan(c.year + step);
    }
  }),
  // "the past three days", "the last two weeks": a span that ends today.
  rule(CUE_UNIT, `(?:the )?(?:past|last) ${COUNT} ${UNIT}`, (m, c) => {
    const days = count(m[1]!) * UNIT_DAYS[m[2]!]!;
    const unit = days <= 1 ? 'day' : days <= 7 ? 'week' : days <= 31 ? 'month' : 'year';
    return span(c.today - days * DAY, c.today + DAY, unit);
  }),
  // "two years ago", "a few days ago"; "in three weeks", "two days from now".
  rule(CUE_UNIT, `${COUNT} ${UNIT} ago`, (m, c) => shifted(count(m[1]!), m[2]!, -1, c)),
  rule(CUE_UNIT, `(?:in|within) ${COUNT} ${UNIT}|${COUNT} ${UNIT} from now`, (m, c) =>
    m[1] ? shifted(count(m[1]), m[2]!, 1, c) : shifted(count(m[3]!), m[4]!, 1, c),
  ),
  // Seasons: "last summer" ended before today; "this winter" is the one of this year; "next spring" begins after today.
  rule(CUE_SEASON, '(last|this|next) (spring|summer|autumn|fall|winter)', (m, c) => {
    const first = SEASON_START[m[2]!]!;
    const seasonOf = (y: number) => span(Date.UTC(y, first, 1), Date.UTC(y, first + 3, 1), 'month');
    if (m[1] === 'this') return seasonOf(first === 11 && c.month < 2 ? c.year - 1 : c.year);
    const back = m[1] === 'last';
    for (let y = back ? c.year : c.year - 1; ; y += back ? -1 : 1) {
      const s = seasonOf(y);
      if (back ? s.end <= c.today : s.start > c.today) return s;
    }
  }),
  // Weekdays: "last Friday" is the latest before today, "next Friday" the first after it, "this Friday" the
  // one of this week; a bare one ("on Friday") the latest, or the next in a future sentence.
  rule(CUE_WEEKDAY, `(last|next|this past|this coming|this|on)?\\s*${WEEKDAY_PATTERN}(?!s\\b|days\\b)\\.?`, (m, c) => {
    const target = dayOf(m[2]!);
    const back = ((c.weekday - target + 6) % 7) + 1; // 1..7 days ago
    const ahead = ((target - c.weekday + 6) % 7) + 1; // 1..7 days ahead
    const which = m[1] ?? '';
    if (which === 'this') return daySpan(mondayOf(c.today) + ((target + 6) % 7) * DAY);
    if (which === 'next' || which === 'this coming') return daySpan(c.today + ahead * DAY);
    if (which === 'last' || which === 'this past') return daySpan(c.today - back * DAY);
    return daySpan(c.future() ? c.today + ahead * DAY : c.today - back * DAY);
  }),
  // "on the 15th": this month's, or last month's if the 15th is still to come (next month's in a future sentence).
  rule(CUE_DIGIT, 'the (\\d{1,2})(?:st|nd|rd|th)', (m, c) => {
    const d = Number(m[1]);
    const ahead = c.future();
    for (const mo of ahead ? [c.month, c.month + 1] : [c.month, c.month - 1]) {
      const s = calendarDay(c.year + Math.floor(mo / 12), ((mo % 12) + 12) % 12, d);
      if (s && (ahead ? s.start >= c.today : s.start <= c.today)) return s;
    }
    return undefined;
  }),
  // A month after a word that makes it a time ("may" alone is a verb): the last one, or the next.
  rule(CUE_MONTH, `(in|during|since|until|by|early|late|mid|last|this|next)[\\s-]+${MONTH_PATTERN}`, (m, c) => {
    const mo = monthIndex(m[2]!);
    if (m[1] === 'this') return monthSpan(c.year, mo);
    const ahead = m[1] === 'next' || (m[1] !== 'last' && m[1] !== 'since' && c.future());
    if (ahead) return monthSpan(mo > c.month ? c.year : c.year + 1, mo);
    return monthSpan(mo < c.month || (mo === c.month && m[1] !== 'last') ? c.year : c.year - 1, mo);
  }),
  // A year after a word that makes it one ("in 2019", "back in 2020", "since 2018").
  rule(
    CUE_DIGIT,
    '(?:in|since|from|until|by|during|of|back in|before|after|early|late|mid)[\\s-]+((?:19|20)\\d{2})',
    (m) => yearSpan(Number(m[1])),
  ),
];

/** The sentence around a position ends at . ! or ?; whether it speaks of the future. */
function futureSentence(lower: string, index: number): boolean {
  let from = index;
  while (from > 0 && !'.!?'.includes(lower[from - 1]!)) from--;
  let to = index;
  while (to < lower.length && !'.!?'.includes(lower[to]!)) to++;
  return FUTURE.test(lower.slice(from, to));
}

/**
 * The time expressions in a text, each resolved against `at` (the time the
 * text was written, epoch ms): absolute dates, months and years, and the
 * relative ones people write. A bare weekday, day of the month or month is
 * the last one before `at`, or the next one when its sentence speaks of the
 * future ("will", "going to", "next", "'ll", ...). Plural weekdays ("on
 * Fridays") are habits, not dates, and are left out.
 */
export function timeMentions(text: string, at: number): TimeMention[] {
  if (!Number.isFinite(at)) return [];
  const lower = text.toLowerCase();
  if (!ANY_CUE.test(lower) && !lower.includes('tonight')) return [];
  const cues = timeCues(lower);
  // The test ANY_CUE replaced, kept where it still decides: "tomorrow" is the one match it misses (no
  // "day", "night", month or weekday in it), so a text whose only time word is "tomorrow" has none.
  if ((cues & CUE_TOMORROW) !== 0 && !ANY_TIME.test(lower)) return [];
  return resolveRules(lower, at, cues);
}

/**
 * `timeMentions` as it was before the cues: every rule on every text the old pre-check passes. The
 * tests' reference that the cues only skip rules that cannot match; not exported from the package.
 */
export function timeMentionsEveryRule(text: string, at: number): TimeMention[] {
  const lower = text.toLowerCase();
  if (!Number.isFinite(at) || !ANY_TIME.test(lower)) return [];
  return resolveRules(lower, at, -1);
}

/** Whether [index, end) overlaps a span already read. */
function overlapsTaken(taken: readonly [number, number][], index: number, end: number): boolean {
  for (let t = 0; t < taken.length; t++) {
    const span = taken[t]!;
    if (index < span[1] && end > span[0]) return true;
  }
  return false;
}

/** The rules whose cues `cues` holds, run over a lower-case text. */
function resolveRules(lower: string, at: number, cues: number): TimeMention[] {
  const today = startOfDay(at);
  const date = new Date(today);
  const found: TimeMention[] = [];
  const taken: [number, number][] = [];
  // Indexed loops, not `for (const [pattern, resolve, needs] of RULES)` and `taken.some(([s, e]) => …)`:
  // array destructuring is the iterator protocol in bytecode, and V8 compiles all of it (a fresh
  // process's bulk write compiles this function on another thread while it runs; issue 30).
  for (let r = 0; r < RULES.length; r++) {
    const rule = RULES[r]!;
    const needs = rule[2];
    if ((cues & needs) !== needs) continue;
    const pattern = rule[0];
    const resolve = rule[1];
    pattern.lastIndex = 0;
    for (let m = pattern.exec(lower); m !== null; m = pattern.exec(lower)) {
      const index = m.index;
      const end = index + m[0].length;
      if (overlapsTaken(taken, index, end)) continue; // part of a longer expression already read
      const context: Context = {
        today,
        year: date.getUTCFullYear(),
        month: date.getUTCMonth(),
        weekday: date.getUTCDay(),
        future: () => futureSentence(lower, index),
      };
      const resolved = resolve(m, context);
      if (!resolved) continue;
      taken.push([index, end]);
      found.push({ text: m[0], index, ...resolved });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}
