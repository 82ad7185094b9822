import { describe, expect, it } from 'vitest';
import { seededRandom } from '../testing';
import { BinaryIndex, BinaryPartError, encodeRescoring, encodeSigns, type SavedCodes } from './binary-index';

const DIM = 384;

function vectors(n: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: DIM }, () => random() * 2 - 1));
}

/** A saved index as a store keeps it: parts by number, and the codes of the current vectors by key. */
function saved(index: BinaryIndex<number>, current: Map<number, Float32Array>) {
  const { header, parts } = index.toParts();
  const reads: number[] = [];
  const asked: number[] = [];
  const source: SavedCodes<number> & { failParts?: boolean; failCodes?: boolean } = {
    part(n) {
      if (source.failParts && n % 2 === 1) throw new Error('gone');
      reads.push(n);
      return parts[n]!;
    },
    codes(keys) {
      if (source.failCodes) throw new Error('gone');
      asked.push(...keys);
      return keys.map((k) => {
        const v = current.get(k);
        return v ? encodeRescoring(v) : undefined;
      });
    },
  };
  return { header, parts, reads, asked, source };
}

function build(): { index: BinaryIndex<number>; current: Map<number, Float32Array> } {
  const index = new BinaryIndex<number>(DIM, { rescoring: true });
  const current = new Map<number, Float32Array>();
  // Three chunks in one scope (4096 codes each, the last partly full) and a small second scope.
  for (const [i, v] of vectors(9000, 1).entries()) {
    index.set(i * 2 + 1, 't', 'a', v);
    current.set(i * 2 + 1, v);
  }
  for (const [i, v] of vectors(100, 2).entries()) {
    index.setEncoded(100_000 + i, 't', 'b', encodeRescoring(v));
    current.set(100_000 + i, v);
  }
  return { index, current };
}

const queries = vectors(3, 3);

/** Byte for byte (a deep equality of megabytes of typed arrays is slow). */
function same(a: Uint8Array[], b: Uint8Array[]): boolean {
  return a.length === b.length && a.every((x, i) => Buffer.compare(x, b[i]!) === 0);
}
const everywhere = { tenant: 't' };

function rankings(index: BinaryIndex<number>) {
  return queries.flatMap((q) => [
    index.ranked(q, everywhere, 600),
    index.ranked(q, { tenant: 't', namespaces: ['b'] }, 30),
  ]);
}

describe('BinaryIndex saved in parts', () => {
  it('restores to the same rankings, reading only keys and signs until the pool needs codes', () => {
    const { index, current } = build();
    const s = saved(index, current);
    const restored = BinaryIndex.fromParts(s.header, s.source);
    // 3 chunks of scope a, 1 of scope b: their key and sign parts (even numbers), no rescoring part.
    expect(s.reads).toEqual([0, 2, 4, 6]);
    expect(restored.size).toBe(index.size);
    expect(restored.count({ tenant: 't', namespaces: ['a'] })).toBe(9000);
    expect(rankings(restored)).toEqual(rankings(index));
    // The candidates' codes came one by one; no rescoring part was read.
    expect(s.asked.length).toBeGreaterThan(0);
    expect(s.reads.every((n) => n % 2 === 0)).toBe(true);
    expect(restored.unreadParts).toBe(4);
    expect(restored.readAhead(2)).toBe(2);
    expect(restored.readAhead(10)).toBe(0);
    expect(rankings(restored)).toEqual(rankings(index));
    // Read whole, it saves the same bytes as the index it came from.
    const again = restored.toParts();
    expect(same(again.parts, s.parts)).toBe(true);
    expect(new TextDecoder().decode(again.header)).toBe(new TextDecoder().decode(s.header));
  });

  it('takes changes before its parts are read: the same results and saved bytes as the original', () => {
    const { index, current } = build();
    const s = saved(index, current);
    const restored = BinaryIndex.fromParts(s.header, s.source);
    const fresh = vectors(50, 4);
    for (const target of [index, restored]) {
      // Removals swap the last code of a scope into the hole (from a chunk not read yet).
      for (const key of [1, 4097, 8193, 17_999, 100_050]) target.remove(key);
      // Replaced in place, added at the end, moved to another scope.
      target.set(3, 't', 'a', fresh[0]!);
      for (let i = 1; i < 40; i++) target.setEncoded(200_000 + i, 't', 'a', encodeRescoring(fresh[i]!));
      target.set(5, 't', 'b', fresh[40]!);
    }
    expect(restored.size).toBe(index.size);
    expect(rankings(restored)).toEqual(rankings(index));
    expect(same(restored.toParts().parts, index.toParts().parts)).toBe(true);
  });

  it('ranks the same with a source that gives vectors for codes, through searches, read-ahead and changes between them', () => {
    const { index, current } = build();
    const s = saved(index, current);
    // A store whose table holds sign bits only gives the floats: the index quantizes them (same bytes).
    const floats: SavedCodes<number> = { part: s.source.part, codes: (keys) => keys.map((k) => current.get(k)) };
    const restored = BinaryIndex.fromParts(s.header, floats);
    expect(rankings(restored)).toEqual(rankings(index));
    const fresh = vectors(3, 5);
    for (const target of [index, restored]) {
      // A whole scope removed before its chunk was read (its sign codes never left their part).
      for (let i = 0; i < 100; i++) target.remove(100_000 + i);
      target.readAhead(1);
      target.set(17_999, 't', 'a', fresh[0]!); // into the last chunk of scope a, not read yet
      target.set(300_000, 't', 'c', fresh[1]!);
    }
    expect(restored.count({ tenant: 't', namespaces: ['b'] })).toBe(0);
    expect(rankings(restored)).toEqual(rankings(index));
    expect(restored.readAhead(10)).toBe(0);
    expect(rankings(restored)).toEqual(rankings(index));
    expect(same(restored.toParts().parts, index.toParts().parts)).toBe(true);
  });

  it('ranks the same when a source mixes floats and encoded codes (runs of floats quantized a kernel call a run)', () => {
    const { index, current } = build();
    const s = saved(index, current);
    // Floats in runs of every length around the batch of 64, broken by encoded codes.
    const mixed: SavedCodes<number> = {
      part: s.source.part,
      codes: (keys) =>
        keys.map((k, i) => (i % 67 === 3 || i % 101 === 0 ? encodeRescoring(current.get(k)!) : current.get(k))),
    };
    const restored = BinaryIndex.fromParts(s.header, mixed);
    expect(rankings(restored)).toEqual(rankings(index));
  });

  /** A header as saved before it held the largest key (read alike: the keys give it). */
  const withoutMaxKey = (header: Uint8Array) => {
    const parsed = JSON.parse(new TextDecoder().decode(header));
    expect(parsed.maxKey).toBe(100_099);
    delete parsed.maxKey;
    return new TextEncoder().encode(JSON.stringify(parsed));
  };

  it.each([
    ['as saved', (header: Uint8Array) => header],
    ['saved before the header held the largest key', withoutMaxKey],
  ])(
    'takes new keys after a restore (a catch-up of new rows) and then any change, %s: the same results and saved bytes',
    (_, header) => {
      const { index, current } = build();
      const s = saved(index, current);
      const restored = BinaryIndex.fromParts(header(s.header), s.source);
      const fresh = vectors(20, 6);
      const steps: ((target: BinaryIndex<number>) => void)[] = [
        // Keys above every saved one, one of them written twice, in both scopes.
        (t) => {
          for (let i = 0; i < 10; i++) t.setEncoded(200_000 + i, 't', i % 2 ? 'a' : 'b', encodeRescoring(fresh[i]!));
          t.set(200_004, 't', 'b', fresh[10]!);
        },
        // Then a new key below the largest saved one, a move of a new key, a removal, a replacement.
        (t) => {
          t.set(2, 't', 'a', fresh[11]!);
          t.set(200_006, 't', 'c', fresh[12]!);
          t.remove(200_007);
          t.set(3, 't', 'a', fresh[13]!);
        },
      ];
      for (const step of steps) {
        step(index);
        step(restored);
        expect(restored.size).toBe(index.size);
        expect(restored.count({ tenant: 't', namespaces: ['b'] })).toBe(
          index.count({ tenant: 't', namespaces: ['b'] }),
        );
        expect(rankings(restored)).toEqual(rankings(index));
      }
      expect(same(restored.toParts().parts, index.toParts().parts)).toBe(true);
    },
  );

  it('takes a vector with its stored sign code (a catch-up from the codes table) as it takes the vector alone', () => {
    const plain = new BinaryIndex<number>(DIM, { rescoring: true });
    const signed = new BinaryIndex<number>(DIM, { rescoring: true });
    for (const [i, v] of vectors(300, 7).entries()) {
      plain.set(i, 't', 'a', v);
      const signs = encodeSigns(v);
      // A code of another length (not this dimension's) is not taken: the signs are computed.
      const given = i % 3 === 0 ? new Uint8Array(8) : new Uint8Array(signs.buffer);
      signed.set(i, 't', 'a', v, given);
    }
    expect(same(signed.toParts().parts, plain.toParts().parts)).toBe(true);
    expect(signed.ranked(queries[0]!, everywhere, 50)).toEqual(plain.ranked(queries[0]!, everywhere, 50));
  });

  it('a part or code it cannot read throws BinaryPartError and leaves the index as it was', () => {
    const { index, current } = build();
    const s = saved(index, current);
    const restored = BinaryIndex.fromParts(s.header, s.source);
    s.source.failParts = true;
    s.source.failCodes = true;
    expect(() => restored.readAhead(1)).toThrow(BinaryPartError);
    // Removing key 1 moves the scope's last code (not read yet) into its slot.
    expect(() => restored.remove(1)).toThrow(BinaryPartError);
    expect(() => restored.ranked(queries[0]!, everywhere, 600)).toThrow(BinaryPartError);
    expect(restored.size).toBe(index.size);
    s.source.failParts = false;
    s.source.failCodes = false;
    expect(rankings(restored)).toEqual(rankings(index));
    restored.remove(1);
    expect(restored.size).toBe(index.size - 1);
  });

  it('refuses a header that is not one of its saves', () => {
    const { index, current } = build();
    const s = saved(index, current);
    expect(() => BinaryIndex.fromParts(new TextEncoder().encode('{"format":99}'), s.source)).toThrow();
    expect(() => BinaryIndex.fromParts(new Uint8Array([1, 2, 3]), s.source)).toThrow();
    const shortPart = { ...s.source, part: (n: number) => s.parts[n]!.subarray(1) };
    expect(() => BinaryIndex.fromParts(s.header, shortPart)).toThrow();
  });
});
