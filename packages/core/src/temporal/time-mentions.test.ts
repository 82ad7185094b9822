import { describe, expect, it } from 'vitest';
import { statesDuration, timeAnswerIn } from './time-answer';
import { timeMentions, timeMentionsEveryRule } from './time-mentions';

/** Monday 8 May 2023, 13:56 UTC. */
const AT = Date.parse('2023-05-08T13:56:00Z');
const day = (iso: string) => iso.slice(0, 10);
/** Each mention as `words -> [start, end) unit`, days as ISO dates. */
const read = (text: string, at = AT) =>
  timeMentions(text, at).map(
    (m) => `${m.text} -> [${day(new Date(m.start).toISOString())}, ${day(new Date(m.end).toISOString())}) ${m.unit}`,
  );

describe('timeMentions', () => {
  it('resolves relative days, weeks, months and years against the time the words were written', () => {
    expect(read('I went to a support group yesterday')).toEqual(['yesterday -> [2023-05-07, 2023-05-08) day']);
    expect(read('the day before yesterday, and tomorrow too')).toEqual([
      'the day before yesterday -> [2023-05-06, 2023-05-07) day',
      'tomorrow -> [2023-05-09, 2023-05-10) day',
    ]);
    expect(read('Last week I gave a talk; next month I have a show')).toEqual([
      'last week -> [2023-05-01, 2023-05-08) week',
      'next month -> [2023-06-01, 2023-07-01) month',
    ]);
    expect(read('We moved here two years ago, a few days ago we painted')).toEqual([
      'two years ago -> [2021-01-01, 2022-01-01) year',
      'a few days ago -> [2023-05-05, 2023-05-06) day',
    ]);
    expect(read('last weekend and this weekend')).toEqual([
      'last weekend -> [2023-05-06, 2023-05-08) day',
      'this weekend -> [2023-05-13, 2023-05-15) day',
    ]);
    expect(read('in a couple of weeks')).toEqual(['in a couple of weeks -> [2023-05-22, 2023-05-29) week']);
    expect(read('last summer was hot')).toEqual(['last summer -> [2022-06-01, 2022-09-01) month']);
  });

  it('reads weekdays and days of the month as the last ones, or the next ones in a sentence about the future', () => {
    expect(read('I joined a new group last Tues.')).toEqual(['last tues -> [2023-05-02, 2023-05-03) day']);
    expect(read('I met him on Friday.')).toEqual(['on friday -> [2023-05-05, 2023-05-06) day']);
    expect(read("We'll meet on Friday.")).toEqual(['on friday -> [2023-05-12, 2023-05-13) day']);
    expect(read('next Friday')).toEqual(['next friday -> [2023-05-12, 2023-05-13) day']);
    expect(read('I met my teammates on the 15th after my trip.')).toEqual(['the 15th -> [2023-04-15, 2023-04-16) day']);
    expect(read('I go climbing on Fridays')).toEqual([]); // a habit, not a date
  });

  it('reads absolute dates, months and years, and leaves verbs and plain numbers alone', () => {
    expect(read('On May 8, 2023 and on 7 May we met')).toEqual([
      'may 8, 2023 -> [2023-05-08, 2023-05-09) day',
      '7 may -> [2023-05-07, 2023-05-08) day',
    ]);
    expect(read('notes from 2023-01-02; back in 2019 we moved; in June')).toEqual([
      '2023-01-02 -> [2023-01-02, 2023-01-03) day',
      'back in 2019 -> [2019-01-01, 2020-01-01) year',
      'in june -> [2022-06-01, 2022-07-01) month',
    ]);
    expect(read('May I ask about the 12 services?')).toEqual([]);
    expect(read('It was February 30, 2023')).toEqual([]); // no such day
  });
});

/** Words of the patterns, words that hold their letters without being times, and glue between them. */
const WORDS = (
  'january february march april may june july august september october november december jan feb mar apr ' +
  'jun jul aug sep sept oct nov dec jan. sept. monday tuesday wednesday thursday friday saturday sunday mon ' +
  'tue tues wed thu thur thurs fri sat sun mondays fridays day days week weeks weekend weekends month months ' +
  'year years spring summer autumn fall winter a an one two three twelve couple few several of the other ' +
  'yesterday today tonight tomorrow night morning afternoon evening this last next past previous coming on ' +
  'in within from now ago during since until by early late mid back before after will gonna soon plan ' +
  "i'll we'll 1st 2nd 3rd 15th 31st 8 30 2019 2023 1999 2023-05-07 2023-13-01 12:30 summary monster mayor " +
  'sunny daylight weekly yearly satisfy decide octopus novel janitor wedding thunder friend blast holiday ' +
  'sunday. fallen wintery decade xtonight lastfriday onfriday thisfriday nextmonday éte İstanbul ' +
  'LAST Friday MAY June TONIGHT'
)
  .split(' ')
  // Phrases of the patterns, so that short texts hold whole expressions.
  .concat(['this past', 'this coming', 'last night', 'the day before', 'the day after', 'a couple of', 'from now']);
const GLUE = [' ', ' ', ' ', ' ', '', '-', '.', ', ', '! ', '? ', '\n', '  ', "'", '_', '/'];

describe('timeMentions cues', () => {
  it('finds the same mentions as every rule run on every text (a rule is skipped only where it cannot match)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const texts: string[] = [];
    // Every two words, apart and glued ("this morning", "onfriday", "this comingfriday"), then longer texts.
    for (const a of WORDS) for (const b of WORDS) texts.push(`${a} ${b}`, `${a}${b}`);
    for (let i = 0; i < 10_000; i++) {
      let text = pick(WORDS);
      for (let n = 2 + Math.floor(random() * 6); n > 0; n--) text += pick(GLUE) + pick(WORDS);
      texts.push(text);
    }
    let withMentions = 0;
    for (const [i, text] of texts.entries()) {
      const at = AT + (i % 400) * 86_400_000;
      const cued = timeMentions(text, at);
      const every = timeMentionsEveryRule(text, at);
      // toEqual only on a difference: tens of thousands of deep comparisons through expect cost seconds.
      if (JSON.stringify(cued) !== JSON.stringify(every)) expect(cued, text).toEqual(every);
      if (cued.length > 0) withMentions++;
    }
    expect(withMentions).toBeGreaterThan(texts.length / 4); // the texts reach the rules, not only the pre-checks
  });

  it('reads a text to its end and no further: the same mentions on every text cut one to three characters short', () => {
    // The cues look two characters past a word's first letter ("on" + a weekday's three, "onfri");
    // texts that end there (a weekday, month or unit cut short, "onfr", "on") must read as their end.
    let withMentions = 0;
    let count = 0;
    for (const a of WORDS)
      for (const b of WORDS)
        for (const glue of [' ', '']) {
          const whole = `${a}${glue}${b}`;
          for (let cut = 0; cut <= 3 && cut < whole.length; cut++) {
            const text = whole.slice(0, whole.length - cut);
            const cued = timeMentions(text, AT);
            const every = timeMentionsEveryRule(text, AT);
            if (JSON.stringify(cued) !== JSON.stringify(every)) expect(cued, text).toEqual(every);
            if (cued.length > 0) withMentions++;
            count++;
          }
        }
    expect(withMentions).toBeGreaterThan(count / 8);
    expect(read('lastfri')).toEqual(['lastfri -> [2023-05-05, 2023-05-06) day']);
    expect(read('onfri')).toEqual(['onfri -> [2023-05-05, 2023-05-06) day']);
    expect(read('next mon')).toEqual(['next mon -> [2023-05-15, 2023-05-16) day']);
  });

  it('keeps the pre-check it replaced: "tomorrow" alone is no mention, next to another time word it is', () => {
    expect(read('see you tomorrow')).toEqual([]);
    expect(read('tomorrow morning')).toEqual(['tomorrow -> [2023-05-09, 2023-05-10) day']);
    expect(read('tonight')).toEqual(['tonight -> [2023-05-08, 2023-05-09) day']);
  });
});

describe('timeAnswerIn and statesDuration', () => {
  it('reads whether a question asks when or how long', () => {
    expect(timeAnswerIn('When did Caroline go to the LGBTQ support group?')).toBe('date');
    expect(timeAnswerIn('In what year did they move?')).toBe('date');
    expect(timeAnswerIn('How long ago was her 18th birthday?')).toBe('date');
    expect(timeAnswerIn('How long has Nate had his turtles?')).toBe('duration');
    expect(timeAnswerIn('What did Caroline research?')).toBeUndefined();
    expect(timeAnswerIn('Do you remember when we met?')).toBeUndefined(); // not how it opens
    expect(timeAnswerIn('  "So WHEN did it happen?')).toBe('date');
    expect(timeAnswerIn('During which week did they travel?')).toBe('date');
    expect(timeAnswerIn('How many years ago did they marry?')).toBe('date');
    expect(timeAnswerIn('Which year?')).toBe('date');
    expect(timeAnswerIn('What time is it in Paris')).toBe('date');
    expect(timeAnswerIn('HOW LONG has she painted?')).toBe('duration');
    expect(timeAnswerIn('What did she paint?')).toBeUndefined();
  });

  it('finds stated durations', () => {
    expect(statesDuration("I've had them for 3 years now")).toBe(true);
    expect(statesDuration('5 years already!')).toBe(true);
    expect(statesDuration('since I was a kid')).toBe(true);
    expect(statesDuration('I have three turtles')).toBe(false);
  });
});
