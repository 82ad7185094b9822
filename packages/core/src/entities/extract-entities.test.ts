import { describe, expect, it } from 'vitest';
import { entityKey } from './entity-key';
import { extractEntities } from './extract-entities';
import { batchEntities } from './memory-entities';

const AT = Date.parse('2023-05-08T13:56:00Z');
const found = (text: string, options: Parameters<typeof extractEntities>[1] = {}) =>
  extractEntities(text, options).map((e) => `${e.kind}:${e.name}`);

describe('extractEntities', () => {
  it('finds the speaker, names mid-sentence, quoted titles, places and titled persons', () => {
    expect(found('Caroline: I loved reading "Charlotte\'s Web" with Melanie.', { speaker: 'Caroline' })).toEqual([
      'person:Caroline',
      "title:Charlotte's Web",
      'name:Melanie',
    ]);
    expect(found('We took a short trip to Rome and met Dr. Patel at the Bank of America office.')).toEqual([
      'place:Rome',
      'person:Patel',
      'place:Bank of America',
    ]);
  });

  it('finds titles in single quotes at a text start, after a space or a bracket, beside apostrophes in words', () => {
    expect(found("'Little Women' is what I'm reading, it's good")).toEqual(['title:Little Women']);
    expect(found("I'm reading the talk (‘Embracing Identity’) she's giving")).toEqual(['title:Embracing Identity']);
    expect(found("I'm sure it's Jo's")).toEqual(['name:Jo']);
  });

  it('leaves out pronouns, greetings, weekdays and months, and splits names around them', () => {
    expect(found('Hey Mel! I think Tuesdays in May are best, thanks Caroline.')).toEqual(['name:Mel', 'name:Caroline']);
    expect(found('Luna and Oliver! They are so sweet.')).toEqual(['name:Oliver']); // "Luna" opens the sentence
    expect(found('Researching adoption agencies is a dream.')).toEqual([]);
    expect(found('The LGBTQ support group met.')).toEqual(['name:LGBTQ']);
  });

  it('keeps a word that opens a sentence when it is known to be a name', () => {
    expect(found('Luna sleeps on the piano.', { isKnown: (key) => key === 'luna' })).toEqual(['name:Luna']);
  });

  it('links the dates its time expressions resolve to, with the words as written', () => {
    const [date] = extractEntities('I went there yesterday', { at: AT });
    expect(date).toEqual({
      key: 'date:2023-05-07',
      name: '7 May 2023',
      kind: 'date',
      text: 'yesterday',
      start: '2023-05-07T00:00:00.000Z',
      end: '2023-05-08T00:00:00.000Z',
      source: 'text',
    });
    expect(extractEntities('I went there yesterday').map((e) => e.kind)).toEqual([]); // no time: no dates
    expect(extractEntities('next month and last week', { at: AT }).map((e) => e.key)).toEqual([
      'date:2023-06',
      'date:2023-W18',
    ]);
  });

  it('keys an entity by its terms, so spellings of one name meet', () => {
    expect(entityKey("Charlotte's Web")).toBe(entityKey('charlottes web'));
    expect(entityKey('Café Olé')).toBe(entityKey('cafe ole'));
    expect(entityKey('The')).toBe('');
  });
});

describe('batchEntities', () => {
  it('accepts a sentence-opening name the batch names elsewhere or the store knows; puts given entities first', async () => {
    const asked: string[][] = [];
    const [first, second, third] = await batchEntities(
      [
        { content: 'We named the kitten Luna.', metadata: {}, occurredAt: '2023-05-08T00:00:00Z' },
        { content: 'Luna sleeps all day. Oliver too.', metadata: {}, occurredAt: '2023-05-08T00:00:00Z' },
        {
          content: 'Bailey barks at night.',
          metadata: { speaker: 'Maria' },
          occurredAt: '2023-05-08T00:00:00Z',
          given: [{ name: 'Bailey', kind: 'person' }],
        },
      ],
      {
        extract: true,
        known: async (keys) => {
          asked.push(keys);
          return new Set(keys.filter((k) => k === 'oliv'));
        },
      },
    );
    expect(first!.map((e) => e.key)).toEqual(['luna']);
    expect(second!.map((e) => e.key)).toEqual(['luna', 'oliv']);
    expect(third!.map((e) => [e.key, e.kind, e.source])).toEqual([
      ['bailei', 'person', 'model'],
      ['maria', 'person', 'speaker'],
    ]);
    expect(asked).toEqual([['oliv']]); // one lookup, only for words the batch does not name
  });
});
