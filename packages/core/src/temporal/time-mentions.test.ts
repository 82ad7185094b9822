import { describe, expect, it } from 'vitest';
import { statesDuration, timeAnswerIn } from './time-answer';
import { timeMentions } from './time-mentions';

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
