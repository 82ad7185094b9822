import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idRanks, narrowed, Posting, packPostings, unpackPostings, widened } from './packed';

const posting = (tfs: number[]): Posting =>
  new Posting(
    Int32Array.from(tfs, (_, i) => i * 3),
    Uint32Array.from(tfs),
    tfs.length,
    new Int32Array([tfs.length]),
    0,
    0,
  );

describe('saved postings', () => {
  it('give back every frequency (text | context << 16) once widened from their two-byte form', () => {
    const tf = fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
      .map(([t, c]) => t | (c << 16));
    fc.assert(
      fc.property(fc.array(fc.array(tf, { maxLength: 40 }), { minLength: 1, maxLength: 6 }), (terms) => {
        const saved = terms.map(posting);
        const bytes = packPostings(
          terms.map((_, i) => `t${i}`),
          terms.map((_, i) => i),
          saved,
        );
        const { postings } = unpackPostings(bytes, terms.length);
        postings.forEach((p, i) => {
          expect(p.narrowTfs).toBeDefined(); // one-byte frequencies are saved narrow
          expect(Array.from(widened(p).tfs)).toEqual(terms[i]);
          expect(p.narrowTfs).toBeUndefined();
          expect(Array.from(p.slots)).toEqual(Array.from(saved[i]!.slots));
        });
      }),
    );
  });

  it('are two-byte exactly when every frequency fits a byte, whatever the largest ever posted says', () => {
    // A posting's maxText / maxContext are the largest ever posted: at least every frequency it holds, and
    // above it after a compaction dropped the entry that set them.
    const tf = fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }));
    const term = fc
      .tuple(fc.array(tf, { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 400 }))
      .map(([pairs, extra]): Posting => {
        const p = posting(pairs.map(([t, c]) => t | (c << 16)));
        p.maxText = Math.max(...pairs.map(([t]) => t)) + (extra % 2 === 0 ? 0 : extra);
        p.maxContext = Math.max(...pairs.map(([, c]) => c));
        return p;
      });
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 6 }), (saved) => {
        const bytes = packPostings(
          saved.map((_, i) => `t${i}`),
          saved.map((_, i) => i),
          saved,
        );
        const fits = saved.every((p) => Array.from(p.tfs).every((x) => (x & 0xffff) <= 0xff && x >>> 16 <= 0xff));
        const { postings } = unpackPostings(bytes, saved.length);
        postings.forEach((p, i) => {
          expect(p.narrowTfs !== undefined).toBe(fits);
          expect(Array.from(widened(p).tfs)).toEqual(Array.from(saved[i]!.tfs));
          expect([p.maxText, p.maxContext]).toEqual([saved[i]!.maxText, saved[i]!.maxContext]);
        });
      }),
    );
  });
});

describe('a postings bucket', () => {
  it('holds the same bytes whatever room its postings have past their entries, and whatever that room holds', () => {
    // A posting grows by doubling: its arrays hold entries past n (zeros, or a compaction's leftovers).
    const term = fc.tuple(
      fc.array(fc.tuple(fc.nat(0xffff), fc.nat(0x1ff)), { minLength: 1, maxLength: 20 }),
      fc.nat(20),
      fc.nat(20),
      fc.integer(),
    );
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 8 }), (terms) => {
        const exact: Posting[] = [];
        const roomy: Posting[] = [];
        for (const [entries, slotRoom, tfRoom, junk] of terms) {
          const slots = entries.map((_, i) => i * 2);
          const tfs = entries.map(([t, c]) => t | (c << 16));
          const df = new Int32Array([0, entries.length]);
          const max = (f: (x: number) => number) => Math.max(...tfs.map(f));
          const made = (room: [number, number]) => {
            const s = new Int32Array(slots.length + room[0]).fill(junk);
            s.set(slots);
            const t = new Uint32Array(tfs.length + room[1]).fill(junk >>> 0);
            t.set(tfs);
            return new Posting(
              s,
              t,
              entries.length,
              df,
              max((x) => x & 0xffff),
              max((x) => x >>> 16),
            );
          };
          exact.push(made([0, 0]));
          roomy.push(made([slotRoom, tfRoom]));
        }
        const names = terms.map((_, i) => `t${i}`);
        const ids = terms.map((_, i) => i);
        expect(Buffer.from(packPostings(names, ids, roomy)).equals(Buffer.from(packPostings(names, ids, exact)))).toBe(
          true,
        );
      }),
    );
  });
});

describe('the saved id order', () => {
  it("ranks each slot by its id as `<` orders them, a rewritten id's slots by slot, ids in order or not", () => {
    const id = fc.oneof(
      fc.constantFrom('mem_a', 'mem_b', 'Mem_a', 'mem_a0', '', 'é', '\uffff'),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(fc.option(id, { nil: undefined }), { maxLength: 60 }), fc.boolean(), (ids, inOrder) => {
        const list = inOrder ? [...ids].sort() : ids;
        const bySlot = list.map((_, s) => s);
        bySlot.sort((a, b) => {
          const x = list[a] ?? '';
          const y = list[b] ?? '';
          return x < y ? -1 : x > y ? 1 : a - b;
        });
        const want = new Array<number>(list.length);
        bySlot.forEach((slot, r) => {
          want[slot] = r;
        });
        expect(Array.from(idRanks(list, list.length))).toEqual(want);
      }),
    );
  });

  it('ranks ASCII ids that share a prefix, tie in their first code units or end early, as `<` does', () => {
    // Content-hash ids share a prefix and come in random order: ids alike for many code units, shorter
    // ones, NULs and duplicates (a rewritten id's slots) in string order, ties by slot (a sort by a
    // number made of an id's first code units, measured for the save, has to get these right).
    const tail = fc.string({ unit: fc.constantFrom('\u0000', '0', '9', 'a', 'f', '~', '\u007f'), maxLength: 14 });
    fc.assert(
      fc.property(
        fc.constantFrom('', 'mem_', 'mem_0000000'),
        fc.array(tail, { minLength: 2, maxLength: 300 }),
        fc.array(fc.nat(299), { maxLength: 40 }),
        (prefix, tails, repeats) => {
          const list = tails.map((t) => prefix + t);
          for (const r of repeats) list.push(list[r % list.length]!);
          const bySlot = list.map((_, s) => s);
          bySlot.sort((a, b) => (list[a]! < list[b]! ? -1 : list[a]! > list[b]! ? 1 : a - b));
          const want = new Array<number>(list.length);
          bySlot.forEach((slot, r) => {
            want[slot] = r;
          });
          expect(Array.from(idRanks(list, list.length))).toEqual(want);
        },
      ),
    );
  });
});

describe('narrowed', () => {
  // The loop it replaced: one byte when every value is in [0, 255], two when in [0, 65535], else as they are.
  const reference = (values: Int32Array | Uint32Array) => {
    let max = 0;
    for (const v of values) {
      if (v < 0) return values;
      if (v > max) max = v;
    }
    if (max <= 0xff) return Uint8Array.from(values);
    return max <= 0xffff ? Uint16Array.from(values) : values;
  };
  const value = fc.oneof(
    fc.integer({ min: 0, max: 0xff }),
    fc.integer({ min: 0, max: 0xffff }),
    fc.constantFrom(-1, -256, 0x100, 0x10000, 0xffff + 0x10000, 0x7fffffff, -0x80000000),
  );

  it('gives the array kind and values of the loop it replaced, Int32 and Uint32, from any offset', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 200 }), fc.nat(3), fc.boolean(), (list, offset, unsigned) => {
        const whole = unsigned ? new Uint32Array(offset + list.length) : new Int32Array(offset + list.length);
        whole.set(
          list.map((v) => (unsigned ? v >>> 0 : v)),
          offset,
        );
        const values = whole.subarray(offset);
        const got = narrowed(values);
        const want = reference(values);
        expect(got.constructor).toBe(want.constructor);
        expect(Array.from(got)).toEqual(Array.from(want));
        if (want === values) expect(got).toBe(values);
      }),
    );
  });
});
