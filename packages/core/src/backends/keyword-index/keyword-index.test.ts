import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeValue, BackendRecord, RecordFilter } from '../../contracts';
import { seededRandom } from '../../testing';
import { tokenize } from '../../text';
import { keywordTerms } from '../../text/keyword-terms';
import { Bm25Index } from '../bm25';
import { matchesFilter } from '../match-filter';
import { KeywordIndex, KeywordPartError } from './keyword-index';
import { bucketOf, unpack } from './packed';

const WORDS = [
  'apple',
  'apples',
  'pie',
  'crust',
  'ferry',
  'zanzibar',
  'paris',
  'train',
  'the',
  'of',
  'deploy',
  'deployed',
];

/** Exhaustive reference: every match scored by core's Bm25Index, sorted by score then id, cut to k. */
function bruteForce(
  records: Map<string, BackendRecord>,
  query: string,
  filter: RecordFilter,
  k: number,
  bm25 = reference(records),
) {
  const scores = bm25.search(query, (id) => matchesFilter(records.get(id)!, filter));
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, k);
}

function reference(records: Map<string, BackendRecord>): Bm25Index {
  const bm25 = new Bm25Index();
  for (const r of records.values()) bm25.set(r.id, r.text, r.context);
  return bm25;
}

const textArb = fc.array(fc.constantFrom(...WORDS), { maxLength: 7 }).map((w) => w.join(' '));
const attributesArb = fc.record({
  kind: fc.constantFrom('memory', 'history', 'skill'),
  status: fc.constantFrom<AttributeValue>('active', 'superseded', true, null),
  occurredAt: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant<AttributeValue>('soon')),
  other: fc.constantFrom('x', 'y'),
});
const recordArb = fc.record({
  id: fc.constantFrom(...Array.from({ length: 30 }, (_, i) => `r${String(i).padStart(2, '0')}`)),
  tenant: fc.constantFrom('a', 'b'),
  namespace: fc.constantFrom('n1', 'n2', 'n3'),
  text: textArb,
  context: fc.option(textArb, { nil: undefined }),
  attributes: attributesArb,
});
const opArb = fc.oneof(
  { weight: 6, arbitrary: recordArb.map((r) => ({ op: 'set' as const, r })) },
  { weight: 1, arbitrary: recordArb.map((r) => ({ op: 'remove' as const, id: r.id })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(recordArb, attributesArb)
      .map(([r, a]) => ({ op: 'patch' as const, id: r.id, status: a.status })),
  },
);
const filterArb: fc.Arbitrary<RecordFilter> = fc.record({
  tenant: fc.constantFrom<string | null>('a', 'b', null),
  namespaces: fc.option(fc.subarray(['n1', 'n2', 'n3']), { nil: undefined }),
  where: fc.option(
    fc.record(
      {
        kind: fc.constantFrom<AttributeValue>('memory', 'skill'),
        status: fc.oneof(
          fc.constantFrom<AttributeValue>('active', true, null),
          fc.constant({ in: ['active', 'superseded'] as AttributeValue[] }),
          fc.constant({ ne: 'active' as AttributeValue }),
        ),
        occurredAt: fc.oneof(fc.constant({ gte: 20, lt: 80 }), fc.constant({ notIn: [5, 'soon'] as AttributeValue[] })),
        other: fc.constantFrom('x', 'y'),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
});

type Op =
  | { op: 'set'; r: Omit<BackendRecord, 'payload'> }
  | { op: 'remove'; id: string }
  | { op: 'patch'; id: string; status: AttributeValue };

function apply(index: KeywordIndex, records: Map<string, BackendRecord>, op: Op): void {
  if (op.op === 'set') {
    const record = { ...op.r, payload: {} } as BackendRecord;
    records.set(record.id, record);
    index.set(record.id, record);
  } else if (op.op === 'remove') {
    records.delete(op.id);
    index.remove(op.id);
  } else {
    const r = records.get(op.id);
    if (!r) return;
    records.set(op.id, { ...r, attributes: { ...r.attributes, status: op.status } });
    index.setAttributes(op.id, { status: op.status });
  }
}

function search(
  index: KeywordIndex,
  records: Map<string, BackendRecord>,
  query: string,
  filter: RecordFilter,
  k: number,
) {
  const admit = index.holds(filter) ? undefined : (id: string) => matchesFilter(records.get(id)!, filter);
  return index.search(query, filter, k, admit);
}

describe('KeywordIndex', () => {
  it('returns what the exhaustive BM25F ranking returns, on random corpora, filters and writes', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 60 }),
        fc.array(fc.tuple(textArb, filterArb, fc.integer({ min: 1, max: 12 })), { minLength: 1, maxLength: 5 }),
        fc.constantFrom(0, 2 ** 30),
        (ops, queries, termAtATime) => {
          // MaxScore (0) and term at a time (every query here is short enough) rank alike.
          const index = new KeywordIndex({ termAtATime });
          const records = new Map<string, BackendRecord>();
          for (const op of ops) apply(index, records, op as Op);
          for (const [query, filter, k] of queries) {
            expect(search(index, records, query, filter, k)).toEqual(bruteForce(records, query, filter, k));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('undoes journaled writes on rollback (to a savepoint or entirely) and keeps them on commit', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 25 }),
        fc.array(opArb, { maxLength: 25 }),
        fc.array(opArb, { maxLength: 25 }),
        textArb,
        filterArb,
        (before, outer, inner, query, filter) => {
          const index = new KeywordIndex();
          const records = new Map<string, BackendRecord>();
          for (const op of before) apply(index, records, op as Op);
          const atStart = new Map(records);
          index.begin();
          for (const op of outer) apply(index, records, op as Op);
          const atSavepoint = new Map(records);
          const mark = index.begin();
          for (const op of inner) apply(index, records, op as Op);
          index.rollback(mark);
          expect(search(index, atSavepoint, query, filter, 10)).toEqual(bruteForce(atSavepoint, query, filter, 10));
          index.rollback();
          expect(search(index, atStart, query, filter, 10)).toEqual(bruteForce(atStart, query, filter, 10));
          records.clear();
          for (const [id, r] of atStart) records.set(id, r);
          index.begin();
          for (const op of outer) apply(index, records, op as Op);
          index.commit();
          expect(search(index, records, query, filter, 10)).toEqual(bruteForce(records, query, filter, 10));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('compacts dead slots after many rewrites without changing results', () => {
    const index = new KeywordIndex();
    const records = new Map<string, BackendRecord>();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 2000; i++) {
        const text = `${WORDS[(i * 7 + round) % WORDS.length]} ${WORDS[(i + round) % WORDS.length]} item${i % 50}`;
        apply(index, records, {
          op: 'set',
          r: { id: `d${i}`, tenant: 't', namespace: 'n', text, attributes: { kind: 'memory', status: 'active' } },
        });
      }
      for (let i = 0; i < 300; i++) apply(index, records, { op: 'remove', id: `d${(i * 13 + round) % 2000}` });
    }
    expect(index.size).toBe(records.size);
    // Over 10,000 slots died on the way: fewer left dead means a compaction ran (else this tests nothing).
    expect((index as unknown as { dead: number }).dead).toBeLessThan(1024);
    const filter = { tenant: 't', where: { kind: 'memory', status: 'active' } };
    for (const q of ['apple pie', 'item7 ferry', 'deployed zanzibar item42'])
      expect(search(index, records, q, filter, 20)).toEqual(bruteForce(records, q, filter, 20));
  });

  it('prunes without changing results on a larger Zipfian corpus (common and rare terms, contexts)', () => {
    const random = seededRandom(11);
    const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i}`);
    const zipf = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * Math.log(400))) - 1)]!;
    const sentence = (min: number, max: number) =>
      Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, zipf).join(' ');
    const index = new KeywordIndex();
    const records = new Map<string, BackendRecord>();
    for (let i = 0; i < 3000; i++) {
      apply(index, records, {
        op: 'set',
        r: {
          id: `d${(i * 7919) % 3000}`,
          tenant: random() < 0.8 ? 't' : 'u',
          namespace: random() < 0.5 ? 'a' : 'b',
          text: sentence(3, 15),
          ...(random() < 0.3 ? { context: sentence(5, 30) } : {}),
          attributes: { kind: 'memory', status: random() < 0.9 ? 'active' : 'superseded', occurredAt: i },
        },
      });
    }
    const filters: RecordFilter[] = [
      { tenant: 't', where: { kind: 'memory', status: 'active' } },
      { tenant: null },
      { tenant: 't', namespaces: ['b'], where: { status: 'active', occurredAt: { gte: 500, lt: 2500 } } },
    ];
    const bm25 = reference(records);
    for (let q = 0; q < 40; q++) {
      const query = sentence(1, 6);
      for (const filter of filters)
        for (const k of [1, 10, 50])
          expect(search(index, records, query, filter, k)).toEqual(bruteForce(records, query, filter, k, bm25));
    }
  });

  it('needs admit for a filter on an attribute it does not hold', () => {
    const index = new KeywordIndex({ columns: ['kind'] });
    index.set('x', { tenant: 't', namespace: 'n', text: 'apple', attributes: { kind: 'memory', status: 'active' } });
    const filter = { tenant: 't', where: { status: 'active' } };
    expect(index.holds(filter)).toBe(false);
    expect(() => index.search('apple', filter, 5)).toThrow(/admit/);
    expect(index.search('apple', filter, 5, () => false)).toEqual([]);
    expect(index.search('apple', filter, 5, () => true).map((m) => m.id)).toEqual(['x']);
  });

  it("counts a word's frequency up to 65,535 in the text and in the context, the rest of the words still in the length", () => {
    const index = new KeywordIndex();
    const attributes = { kind: 'memory' };
    const words = (word: string, n: number) => `${word} `.repeat(n);
    const doc = (text: string, context?: string) => ({ tenant: 't', namespace: 'n', text, context, attributes });
    // Same lengths; "ferry" 70,000 times (capped) and 65,535 times score the same, 60,000 times less.
    index.set('over', doc(words('ferry', 70_000), words('paris', 70_000)));
    index.set(
      'at',
      doc(words('ferry', 65_535) + words('train', 4_465), words('paris', 65_535) + words('crust', 4_465)),
    );
    index.set(
      'under',
      doc(words('ferry', 60_000) + words('train', 10_000), words('paris', 60_000) + words('crust', 10_000)),
    );
    for (const query of ['ferry', 'paris']) {
      const scores = new Map(index.search(query, { tenant: 't' }, 3).map((m) => [m.id, m.score]));
      expect(scores.get('over')).toBe(scores.get('at'));
      expect(scores.get('under')).toBeLessThan(scores.get('at')!);
    }
  });
});

describe('keywordTerms', () => {
  it('is core tokenize with the accents of Latin letters removed, other scripts kept', () => {
    expect(keywordTerms('The Café deployed NAÏVE containers')).toEqual(tokenize('the cafe deployed naive containers'));
    expect(keywordTerms('हिंदी がっこう')).toEqual(tokenize('हिंदी がっこう'));
    // The cache of stems gives what stem gives, the second time too.
    expect(keywordTerms('deploying deploying')).toEqual(['deploi', 'deploi']);
  });
});

/** 5,000 documents d00000… of 8 words each from 3,000, drawn with a Zipf-like skew; `text` draws another. */
function zipfCorpus(random: () => number) {
  const index = new KeywordIndex();
  const records = new Map<string, BackendRecord>();
  const vocabulary = Array.from({ length: 3000 }, (_, i) => `w${i}`);
  const text = () =>
    Array.from({ length: 8 }, () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]).join(' ');
  for (let i = 0; i < 5000; i++)
    apply(index, records, {
      op: 'set',
      r: {
        id: `d${String(i).padStart(5, '0')}`,
        tenant: 't',
        namespace: 'a',
        text: text(),
        attributes: { kind: 'memory' },
      },
    });
  return { index, records, text };
}

/** 300 documents d0…d299: "apple pie w{i % 17}". */
function applePies() {
  const index = new KeywordIndex();
  const records = new Map<string, BackendRecord>();
  for (let i = 0; i < 300; i++)
    apply(index, records, {
      op: 'set',
      r: { id: `d${i}`, tenant: 't', namespace: 'a', text: `apple pie w${i % 17}`, attributes: { kind: 'memory' } },
    });
  return { index, records };
}
/** Every query ranks as the exhaustive BM25F ranking of `records`. */
function expectExact(
  index: KeywordIndex,
  records: Map<string, BackendRecord>,
  queries: readonly (readonly [string, RecordFilter, number])[],
): void {
  for (const [query, filter, k] of queries)
    expect(search(index, records, query, filter, k)).toEqual(bruteForce(records, query, filter, k));
}

/** A restored copy of `index` whose reads are counted (and fail while `broken` says so). */
function restored(index: KeywordIndex, broken: (part: number) => boolean = () => false, termAtATime?: number) {
  const { header, parts } = index.toParts();
  const read: number[] = [];
  const copy = KeywordIndex.fromParts(
    header,
    (n) => {
      if (broken(n)) throw new Error(`part ${n} unreadable`);
      read.push(n);
      return parts[n]!;
    },
    { termAtATime },
  )!;
  const h = JSON.parse(new TextDecoder().decode(header)) as { buckets: number; idParts: number; idBuckets: number };
  return { copy, read, parts, buckets: h.buckets, idParts: h.idParts, idBuckets: h.idBuckets };
}

describe('KeywordIndex saved in parts', () => {
  it('restored, ranks as the exhaustive BM25F ranking, before and after writes, on random corpora and filters', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 60 }),
        fc.array(opArb, { maxLength: 20 }),
        fc.array(fc.tuple(textArb, filterArb, fc.integer({ min: 1, max: 12 })), { minLength: 1, maxLength: 5 }),
        fc.constantFrom(0, 2 ** 30),
        (before, after, queries, termAtATime) => {
          const index = new KeywordIndex();
          const records = new Map<string, BackendRecord>();
          for (const op of before) apply(index, records, op as Op);
          const { copy } = restored(index, undefined, termAtATime);
          expectExact(copy, records, queries);
          for (const op of after) apply(copy, records, op as Op);
          expectExact(copy, records, queries);
          // Saved again after its writes, and restored: the same.
          const { copy: again } = restored(copy);
          expectExact(again, records, queries);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a search reads the documents part, then only the postings parts of its terms and the id parts of its results', () => {
    const { index, records } = zipfCorpus(seededRandom(3));
    const { copy, read, buckets, idParts } = restored(index);
    expect(read).toEqual([0]); // fromParts: the header and the documents' lengths, classes and id order
    expect(buckets).toBeGreaterThan(4);
    expect(idParts).toBeGreaterThan(4);
    const filter = { tenant: 't', where: { kind: 'memory' } };
    const hits = search(copy, records, 'w1 w2 w2999', filter, 5);
    expect(hits).toEqual(bruteForce(records, 'w1 w2 w2999', filter, 5));
    // Parts: 0 documents, 1 attributes, 2 id order (on a tie), then ids by 64 slots, then postings buckets.
    const idPart = (id: string) => 3 + Math.floor(Number(id.slice(1)) / 64); // ids in slot order here
    const expected = new Set([
      0,
      ...['w1', 'w2', 'w2999'].map((t) => 3 + idParts + bucketOf(t, buckets)),
      ...hits.map((h) => idPart(h.id)),
    ]);
    expect(new Set(read.filter((n) => n !== 2))).toEqual(expected);
    // Each part holds what it says: a bucket part names its terms.
    const { meta } = unpack<{ terms: string[] }>(restored(index).parts[3 + idParts + bucketOf('w1', buckets)]!);
    expect(meta.terms).toContain('w1');
    // Read ahead to the end: every part read once (but the id buckets: the id order is read, which
    // finds a saved id once the ids are all read), then searches read none and rank the same.
    const { copy: ahead, read: aheadRead, parts: all, idBuckets } = restored(index);
    search(ahead, records, 'w1 w2 w2999', filter, 5);
    let rounds = 0;
    while (ahead.readAhead(50)) rounds++;
    expect(rounds).toBeGreaterThan(1);
    expect(idBuckets).toBeGreaterThan(4);
    expect(aheadRead.length).toBe(all.length - idBuckets);
    expect(new Set(aheadRead).size).toBe(all.length - idBuckets);
    for (const q of ['w1 w2 w2999', 'w5 w77', 'w1500'])
      expect(search(ahead, records, q, filter, 20)).toEqual(bruteForce(records, q, filter, 20));
    apply(ahead, new Map(records), { op: 'remove', id: 'd00008' }); // found by the id order, read already
    expect(aheadRead.length).toBe(all.length - idBuckets);
    // Written and saved again after reading its parts in another order than their terms' ids: the same ranking.
    apply(copy, records, { op: 'remove', id: 'd00007' });
    const { copy: again } = restored(copy);
    for (const q of ['w1 w2 w2999', 'w5 w77', 'w1500'])
      expect(search(again, records, q, filter, 20)).toEqual(bruteForce(records, q, filter, 20));
  });

  it("with readMany, reads the id parts of a search's results in one call, and ranks the same", () => {
    const random = seededRandom(5);
    const index = new KeywordIndex();
    const records = new Map<string, BackendRecord>();
    const vocabulary = Array.from({ length: 500 }, (_, i) => `w${i}`);
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: 8 }, () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]).join(' ');
      apply(index, records, {
        op: 'set',
        r: { id: `d${String(i).padStart(5, '0')}`, tenant: 't', namespace: 'a', text, attributes: {} },
      });
    }
    const { header, parts } = index.toParts();
    const one: number[] = [];
    const many: number[][] = [];
    const copy = KeywordIndex.fromParts(
      header,
      (n) => {
        one.push(n);
        return parts[n]!;
      },
      {
        readMany: (ns) => {
          many.push([...ns]);
          return ns.map((n) => parts[n]!);
        },
      },
    )!;
    const filter = { tenant: 't' };
    const hits = search(copy, records, 'w1 w2', filter, 30);
    expect(hits).toEqual(bruteForce(records, 'w1 w2', filter, 30));
    const idParts = new Set(hits.map((h) => 3 + Math.floor(Number(h.id.slice(1)) / 64)));
    expect(idParts.size).toBeGreaterThan(1);
    expect(many).toHaveLength(1);
    expect(new Set(many[0])).toEqual(idParts);
    expect(one.filter((n) => idParts.has(n))).toEqual([]);
    // A part readMany does not give: the search fails as a part error, and the index is unchanged.
    const { header: h2, parts: p2 } = index.toParts();
    const broken = KeywordIndex.fromParts(h2, (n) => p2[n]!, {
      readMany: () => {
        throw new Error('gone');
      },
    })!;
    expect(() => broken.search('w1 w2', filter, 30)).toThrow(KeywordPartError);
  });

  it('ranks the same over hundreds of searches of one index (the scratch marks of each search)', () => {
    const index = new KeywordIndex();
    const records = new Map<string, BackendRecord>();
    for (let i = 0; i < 300; i++) {
      const text = i < 100 ? `apple a${i % 5}` : `berry b${i % 7}`;
      apply(index, records, { op: 'set', r: { id: `d${i}`, tenant: 't', namespace: 'a', text, attributes: {} } });
    }
    const filter = { tenant: 't' };
    // One query's documents are searched again only after many searches of others (the marks cycle).
    for (let i = 0; i < 600; i++) {
      const query = i % 255 === 0 ? 'apple a1' : 'berry b3';
      expect(search(index, records, query, filter, 5)).toEqual(bruteForce(records, query, filter, 5));
    }
  });

  it('orders tied matches by their ids without reading the id order part when the candidates are few', () => {
    const index = new KeywordIndex();
    const records = new Map<string, BackendRecord>();
    // Ids in another order than the slots; three documents tie on "pear", one ranks above them.
    for (let i = 0; i < 3000; i++) {
      const text = [3, 1, 2].includes(i) ? `pear n${i}` : i === 700 ? 'pear pear n700' : `n${i} m${i % 50}`;
      const id = `d${String((i * 7919) % 3000).padStart(5, '0')}`;
      apply(index, records, { op: 'set', r: { id, tenant: 't', namespace: 'a', text, attributes: {} } });
    }
    const { header, parts } = index.toParts();
    const read: number[] = [];
    const copy = KeywordIndex.fromParts(
      header,
      (n) => {
        read.push(n);
        return parts[n]!;
      },
      {
        readMany: (ns) => {
          read.push(...ns);
          return ns.map((n) => parts[n]!);
        },
      },
    )!;
    const filter = { tenant: 't' };
    const hits = search(copy, records, 'pear', filter, 3);
    expect(hits).toEqual(bruteForce(records, 'pear', filter, 3));
    expect(hits.map((h) => h.id)).toEqual(['d02300', 'd00838', 'd01919']);
    const RANK_PART = 2;
    expect(read).not.toContain(RANK_PART);
    // Many candidates (50 tie on "m7"): the order part is read, and the ranking is the same.
    expect(search(copy, records, 'm7', filter, 40)).toEqual(bruteForce(records, 'm7', filter, 40));
    expect(read).toContain(RANK_PART);
  });

  it('MaxScore orders the ties left at the end by their ids: ties a higher score pushed out read no id order', () => {
    const index = new KeywordIndex();
    const records = new Map<string, BackendRecord>();
    // 1,000 documents tie on "apple" and come first; ten rank above them and tie with each other.
    for (let i = 0; i < 1010; i++) {
      const text = i < 1000 ? `apple x${i}` : `apple apple y${i}`;
      const id = `d${String((i * 7919) % 1010).padStart(5, '0')}`;
      apply(index, records, { op: 'set', r: { id, tenant: 't', namespace: 'a', text, attributes: {} } });
    }
    const { copy, read } = restored(index, undefined, 0); // every search by MaxScore
    const filter = { tenant: 't' };
    const hits = search(copy, records, 'apple', filter, 10);
    expect(hits).toEqual(bruteForce(records, 'apple', filter, 10));
    const RANK_PART = 2;
    expect(read).not.toContain(RANK_PART);
    // Ties left at the end over many id parts: the order part is read, and the ranking is the same.
    expect(search(copy, records, 'apple', filter, 40)).toEqual(bruteForce(records, 'apple', filter, 40));
    expect(read).toContain(RANK_PART);
  });

  it('orders ties by id the same way built or restored, with new ids among the saved ones, by either search', () => {
    // Saved documents tie on "apple"; writes after the restore add documents whose ids sort between
    // theirs (a write's slot has no saved rank: its ties compare ids) and rewrite saved ones.
    const records = new Map<string, BackendRecord>();
    const built = new KeywordIndex();
    for (let i = 0; i < 3000; i++) {
      const id = `d${String((i * 7919) % 3000).padStart(5, '0')}`;
      apply(built, records, { op: 'set', r: { id, tenant: 't', namespace: 'a', text: 'apple pie', attributes: {} } });
    }
    const copies = [restored(built, undefined, 0).copy, restored(built).copy];
    for (let i = 0; i < 40; i++) {
      const op: Op = {
        op: 'set',
        r: {
          id: i % 2 ? `d${String(i * 71).padStart(5, '0')}a` : `d${String(i * 13).padStart(5, '0')}`,
          tenant: 't',
          namespace: 'a',
          text: 'apple pie',
          attributes: {},
        },
      };
      for (const index of [built, ...copies]) apply(index, new Map(records), op);
      apply(new KeywordIndex(), records, op);
    }
    const filter = { tenant: 't' };
    for (const k of [1, 7, 50, 300])
      for (const index of [built, ...copies])
        expect(search(index, records, 'apple', filter, k)).toEqual(bruteForce(records, 'apple', filter, k));
  });

  it('restored, takes writes of new documents (and their rollback) and ranks as the exhaustive ranking, on random corpora', () => {
    const newArb = recordArb.map((r) => ({ ...r, id: `q${r.id}` })); // ids the saved index does not hold
    const writeArb = fc.oneof(
      { weight: 6, arbitrary: newArb.map((r) => ({ op: 'set' as const, r })) },
      { weight: 1, arbitrary: newArb.map((r) => ({ op: 'remove' as const, id: r.id })) },
      { weight: 1, arbitrary: newArb.map((r) => ({ op: 'patch' as const, id: r.id, status: r.attributes.status })) },
      { weight: 1, arbitrary: opArb }, // now and then a saved document (its slot `touched`; the index is not built whole)
    );
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 60 }),
        fc.array(writeArb, { maxLength: 20 }),
        fc.array(writeArb, { maxLength: 5 }),
        fc.array(fc.tuple(textArb, filterArb, fc.integer({ min: 1, max: 12 })), { minLength: 1, maxLength: 5 }),
        (before, after, undone, queries) => {
          const index = new KeywordIndex();
          const records = new Map<string, BackendRecord>();
          for (const op of before) apply(index, records, op as Op);
          const { copy } = restored(index);
          const [query, filter, k] = queries[0]!;
          search(copy, records, query, filter, k); // some parts read before the writes, as a recall does
          for (const op of after) apply(copy, records, op as Op);
          // Writes journaled and rolled back leave it as it was.
          copy.begin();
          const kept = new Map(records);
          for (const op of undone) apply(copy, records, op as Op);
          copy.rollback();
          expectExact(copy, kept, queries);
          const { copy: again } = restored(copy);
          expectExact(again, kept, queries);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a write of new documents reads one id bucket each (is it saved?), not their terms' postings nor the whole index", () => {
    const { index, records, text } = zipfCorpus(seededRandom(5));
    const { copy, read, buckets, idParts, idBuckets } = restored(index);
    const firstIdBucket = 3 + idParts + buckets;
    const idBucket = (id: string) => firstIdBucket + bucketOf(id, idBuckets);
    const filter = { tenant: 't', where: { kind: 'memory' } };
    search(copy, records, 'w1 w2', filter, 5);
    const readBefore = read.length;
    const added = Array.from({ length: 20 }, (_, i) => ({
      id: `n${i}`,
      tenant: 't',
      namespace: 'a',
      text: `${text()} brandnew${i}`,
      attributes: { kind: 'memory' },
    }));
    for (const r of added) apply(copy, records, { op: 'set', r });
    apply(copy, records, { op: 'remove', id: 'n3' });
    // The id bucket of each new id (n3 is found among the writes': none), nothing else.
    expect(new Set(read.slice(readBefore))).toEqual(new Set(added.map((r) => idBucket(r.id))));
    // A search reads its terms' buckets: the new documents' postings join the saved ones.
    for (const q of ['w1 w2 w2999', 'brandnew3 w5', 'brandnew7 w1500', 'w0'])
      expect(search(copy, records, q, filter, 20)).toEqual(bruteForce(records, q, filter, 20));
    // A rewrite and a delete of saved documents read their id buckets; a patch of one, the attributes too.
    const readBeforeSaved = read.length;
    apply(copy, records, {
      op: 'set',
      r: { id: 'd00010', tenant: 't', namespace: 'a', text: 'brandnew7 w1', attributes: { kind: 'memory' } },
    });
    apply(copy, records, { op: 'patch', id: 'd00020', status: 'superseded' });
    apply(copy, records, { op: 'remove', id: 'd00030' });
    expect(new Set(read.slice(readBeforeSaved))).toEqual(
      new Set(
        [1, ...['d00010', 'd00020', 'd00030'].map(idBucket)].filter((n) => !read.slice(0, readBeforeSaved).includes(n)),
      ),
    );
    for (const q of ['w1 w2 w2999', 'brandnew3 w5', 'brandnew7 w1500', 'w0'])
      expect(search(copy, records, q, { ...filter, where: { ...filter.where, status: 'superseded' } }, 20)).toEqual(
        bruteForce(records, q, { ...filter, where: { ...filter.where, status: 'superseded' } }, 20),
      );
    for (const q of ['w1 w2 w2999', 'brandnew3 w5', 'brandnew7 w1500', 'w0'])
      expect(search(copy, records, q, filter, 20)).toEqual(bruteForce(records, q, filter, 20));
  });

  it('restored, takes more new documents than its spare room, then filters on their attributes and saves them', () => {
    const { index, records } = applePies();
    const { copy, read } = restored(index);
    for (let i = 0; i < 2500; i++)
      apply(copy, records, {
        op: 'set',
        r: {
          id: `n${i}`,
          tenant: 't',
          namespace: i % 3 === 0 ? 'b' : 'a',
          text: `apple w${i % 23} fresh${i % 7}`,
          attributes: { kind: 'memory', occurredAt: i % 100, type: i % 2 === 0 ? 'user' : 'ai' },
        },
      });
    expect(read).not.toContain(1); // the attribute part: not read by writes of new documents
    const filters: RecordFilter[] = [
      { tenant: 't', where: { occurredAt: { gte: 20, lt: 60 } } },
      { tenant: 't', namespaces: ['b'], where: { kind: 'memory', type: 'ai' } },
      { tenant: 't' },
    ];
    for (const filter of filters)
      for (const q of ['apple w3', 'fresh2 pie', 'w16 fresh6'])
        expect(search(copy, records, q, filter, 15)).toEqual(bruteForce(records, q, filter, 15));
    const { copy: again } = restored(copy);
    for (const filter of filters)
      for (const q of ['apple w3', 'fresh2 pie'])
        expect(search(again, records, q, filter, 15)).toEqual(bruteForce(records, q, filter, 15));
  });

  it('restored and saved again before any write (every part read), takes writes and ranks the same', () => {
    const { index, records } = applePies();
    const { copy } = restored(index);
    copy.toParts(); // as a save after a catch-up: every part read, the id order not
    apply(copy, records, {
      op: 'set',
      r: { id: 'n1', tenant: 't', namespace: 'a', text: 'apple w3 ferry', attributes: {} },
    });
    apply(copy, records, {
      op: 'set',
      r: { id: 'd5', tenant: 't', namespace: 'a', text: 'w3 w3 ferry', attributes: {} },
    });
    for (const q of ['apple w3', 'ferry', 'pie w16'])
      expect(search(copy, records, q, { tenant: 't' }, 10)).toEqual(bruteForce(records, q, { tenant: 't' }, 10));
  });

  it('saves, restored and written to, the parts the index built with the same writes saves (ids JSON escapes too)', () => {
    // A restored index sorts a flat copy of its ids for the id order (a JSON round trip): the same order.
    const ids = ['a"b', 'a\\b', 'a\nb', 'a\ud800', 'a\udfff', 'a\u0000', 'é', 'a', 'a b', 'mem_0', 'mem_00', 'ab'];
    const doc = (i: number) => ({ tenant: 't', namespace: 'a', text: `apple w${i % 5} pie`, attributes: {} });
    const built = new KeywordIndex();
    for (const [i, id] of ids.entries()) built.set(id, doc(i));
    const { header, parts } = built.toParts();
    const copy = KeywordIndex.fromParts(header, (n) => parts[n]!)!;
    ids.forEach((id, i) => {
      for (const index of [built, copy]) if (i % 3 === 0) index.set(`${id}+`, doc(i + 1));
    });
    for (const index of [built, copy]) index.set(ids[1]!, doc(7)); // a rewrite: a dead slot and a live one, same id
    const bytes = (index: KeywordIndex) => {
      const saved = index.toParts();
      return Buffer.concat([saved.header, ...saved.parts]);
    };
    expect(bytes(copy).equals(bytes(built))).toBe(true);
  });

  it("restored, its arrays of every slot are not V8's external memory, and writes past them grow them", () => {
    // 20 bytes a slot at 1M slots counted as external memory made V8 collect garbage in a cold start.
    const { index, records, text } = zipfCorpus(seededRandom(5));
    const { header, parts } = index.toParts();
    const before = process.memoryUsage().external;
    const copy = KeywordIndex.fromParts(header, (n) => parts[n]!)!;
    const slotBytes = 20 * (5000 + 1024);
    expect(process.memoryUsage().external - before).toBeLessThan(slotBytes / 2);
    // Writes past the capacity, a rewrite and a delete among them: the same ranking as the exhaustive one.
    for (let i = 0; i < 1500; i++)
      apply(copy, records, {
        op: 'set',
        r: { id: `n${i}`, tenant: 't', namespace: 'a', text: text(), attributes: { kind: 'memory' } },
      });
    apply(copy, records, {
      op: 'set',
      r: { id: 'd00001', tenant: 't', namespace: 'a', text: 'w1 w7', attributes: {} },
    });
    apply(copy, records, { op: 'remove', id: 'd00002' });
    const filter = { tenant: 't' };
    for (const q of ['w1 w2', 'w7 w2999', 'w0 w3 w5']) expectExact(copy, records, [[q, filter, 10]]);
  });

  it('restored where SharedArrayBuffer is missing (a page not cross-origin isolated): the same ranking', () => {
    const { index, records } = zipfCorpus(seededRandom(6));
    const { header, parts } = index.toParts();
    const shared = globalThis.SharedArrayBuffer;
    let copy: KeywordIndex;
    try {
      (globalThis as { SharedArrayBuffer?: unknown }).SharedArrayBuffer = undefined;
      copy = KeywordIndex.fromParts(header, (n) => parts[n]!)!;
    } finally {
      globalThis.SharedArrayBuffer = shared;
    }
    const filter = { tenant: 't' };
    for (const q of ['w1 w2', 'w7 w2999', 'w0 w3 w5']) expectExact(copy, records, [[q, filter, 10]]);
  });

  it('a part that cannot be read throws KeywordPartError and leaves the index as it was', () => {
    const { index, records } = applePies();
    let broken = true;
    const { copy } = restored(index, (n) => broken && n > 0);
    const filter = { tenant: 't' };
    expect(() => copy.search('apple w3', filter, 5)).toThrow(KeywordPartError);
    expect(() => copy.set('d1', { tenant: 't', namespace: 'a', text: 'ferry', attributes: {} })).toThrow(
      KeywordPartError,
    );
    broken = false;
    expect(copy.search('apple w3', filter, 5)).toEqual(bruteForce(records, 'apple w3', filter, 5));
    expect(KeywordIndex.fromParts(new TextEncoder().encode('{"format":3}'), () => new Uint8Array())).toBeUndefined();
  });
});
