// The byte layout of the keyword index's saved parts: a JSON header naming the typed arrays that
// follow, each 8-byte aligned, so a reader takes views of the bytes instead of decoding them; and
// the codecs of its postings buckets and id blocks.

/** The typed arrays a part holds. */
export type PackedArray = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

const MAKERS = {
  Int32Array: (b: ArrayBuffer, o: number, n: number) => new Int32Array(b, o, n),
  Uint32Array: (b: ArrayBuffer, o: number, n: number) => new Uint32Array(b, o, n),
  Uint16Array: (b: ArrayBuffer, o: number, n: number) => new Uint16Array(b, o, n),
  Uint8Array: (b: ArrayBuffer, o: number, n: number) => new Uint8Array(b, o, n),
  Float64Array: (b: ArrayBuffer, o: number, n: number) => new Float64Array(b, o, n),
} as const;
type Kind = keyof typeof MAKERS;

const pad = (n: number) => (n + 7) & ~7;
/** The array's constructor's name, without reading it (a getter, ~5 ms of a cold save's 780 parts at 20k documents). */
function kindOf(a: PackedArray): Kind {
  if (a instanceof Uint8Array) return 'Uint8Array';
  if (a instanceof Int32Array) return 'Int32Array';
  if (a instanceof Uint16Array) return 'Uint16Array';
  if (a instanceof Uint32Array) return 'Uint32Array';
  return 'Float64Array';
}
/** One decoder for every part (a first search decodes dozens): `decode` without `stream` keeps no state. */
const UTF8 = new TextDecoder();
/** One encoder for every part (a save encodes two strings a part: 1,560 at 20k documents). */
const ENCODER = new TextEncoder();

/** `meta` (JSON) and the arrays, as one byte string. */
export function pack(meta: unknown, arrays: readonly PackedArray[]): Uint8Array {
  const header = ENCODER.encode(JSON.stringify({ meta, arrays: arrays.map((a) => [kindOf(a), a.length]) }));
  let size = 8 + pad(header.length);
  for (const a of arrays) size += pad(a.byteLength);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 8);
  let offset = 8 + pad(header.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), offset);
    offset += pad(a.byteLength);
  }
  return out;
}

/** What `pack` took: views of `bytes` (of an aligned copy when they are not 8-byte aligned). Throws on bytes it did not write. */
export function unpack<M>(bytes: Uint8Array): { meta: M; arrays: PackedArray[] } {
  const data: Uint8Array<ArrayBuffer> =
    bytes.byteOffset % 8 === 0 && bytes.buffer instanceof ArrayBuffer
      ? (bytes as Uint8Array<ArrayBuffer>)
      : new Uint8Array(bytes);
  if (data.byteLength < 8) throw new RangeError('packed bytes: too short');
  const headerLength = new DataView(data.buffer, data.byteOffset, 8).getUint32(0, true);
  if (8 + headerLength > data.byteLength) throw new RangeError('packed bytes: header past the end');
  const h = JSON.parse(UTF8.decode(data.subarray(8, 8 + headerLength))) as {
    meta: M;
    arrays: [Kind, number][];
  };
  let offset = data.byteOffset + 8 + pad(headerLength);
  const arrays = h.arrays.map(([kind, length]) => {
    const make = MAKERS[kind];
    if (!make) throw new RangeError(`packed bytes: unknown array kind ${kind}`);
    // Out of the buffer's bounds the constructor throws a RangeError.
    const view = make(data.buffer, offset, length);
    if (offset + view.byteLength > data.byteOffset + data.byteLength) throw new RangeError('packed bytes: cut short');
    offset += pad(view.byteLength);
    return view;
  });
  return { meta: h.meta, arrays };
}

/** The values in one or two bytes each when they all fit (lengths, class ids: nearly always), else as they are. */
export function narrowed(values: Int32Array | Uint32Array): PackedArray {
  // Whether they fit is whether the narrow copy converts back to the same bytes: the typed-array
  // conversions and the comparison are native, where a JS loop over every slot ran cold in a save
  // (issue 30: ~5 arrays of every slot a save). A negative value or one past the width does not
  // come back (-1 → 255 → 255).
  const bytes = new Uint8Array(values);
  if (sameBytes(values, values instanceof Int32Array ? new Int32Array(bytes) : new Uint32Array(bytes))) return bytes;
  const shorts = new Uint16Array(values);
  if (sameBytes(values, values instanceof Int32Array ? new Int32Array(shorts) : new Uint32Array(shorts))) return shorts;
  return values;
}

/** Whether two arrays hold the same bytes (a native comparison). */
export function sameBytes(a: PackedArray, b: PackedArray): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** FNV-1a of a term's UTF-16 code units: which part holds its postings. Part of the saved format. */
export function bucketOf(term: string, buckets: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193);
  return (h >>> 0) % buckets;
}

/**
 * A term's postings: slots and packed (text tf | context tf << 16), `n` used; its document count per
 * class. A class, not object literals: one shape wherever a posting is made (built, saved, caught up),
 * and no allocation site whose pretenuring, when it changed, deoptimized the compiled write path that
 * makes a new term's postings (issue 30).
 */
export class Posting {
  constructor(
    public slots: Int32Array,
    public tfs: Uint32Array,
    public n: number,
    public df: Int32Array,
    /** The largest text and context frequencies ever posted (bounds of a term's score; never lowered). */
    public maxText: number,
    public maxContext: number,
    /** Saved two-byte frequencies not widened yet (`tfs` is empty until `widened`): a bucket's other terms cost nothing. */
    public narrowTfs: Uint16Array | undefined = undefined,
  ) {}
}

/** One bucket of postings: its terms, their ids, and their postings, frequencies in two bytes when they fit. */
export function packPostings(
  terms: readonly string[],
  ids: readonly number[],
  postings: readonly Posting[],
): Uint8Array {
  const meta = new Int32Array(ids.length * 4);
  let n = 0;
  let dfn = 0;
  // Every frequency fits a byte when every posting's largest does (the largest ever posted: at least the largest held).
  let small = true;
  for (let i = 0; i < postings.length; i++) {
    const p = postings[i]!;
    meta[i * 4] = p.n;
    meta[i * 4 + 1] = p.maxText;
    meta[i * 4 + 2] = p.maxContext;
    meta[i * 4 + 3] = p.df.length;
    n += p.n;
    dfn += p.df.length;
    if (p.maxText > 0xff || p.maxContext > 0xff) small = false;
  }
  const slots = new Int32Array(n);
  const tfs = new Uint32Array(n);
  const df = new Int32Array(dfn);
  let at = 0;
  let dfAt = 0;
  for (const p of postings) {
    // A posting's arrays whole when they fit before the end: the entries past its n land where the
    // next postings' copies then go (in order), so no view of its first n is made (two a term, cold).
    slots.set(at + p.slots.length <= n ? p.slots : p.slots.subarray(0, p.n), at);
    tfs.set(at + p.tfs.length <= n ? p.tfs : p.tfs.subarray(0, p.n), at);
    at += p.n;
    df.set(p.df, dfAt);
    dfAt += p.df.length;
  }
  // Frequencies of one byte each (nearly always) in two bytes instead of four.
  let narrow = small;
  if (!small) {
    narrow = true;
    for (let i = 0; i < tfs.length && narrow; i++) narrow = (tfs[i]! & 0xff00ff00) === 0;
  }
  // (text | context << 16) with both below 256, as (text | context << 8): the 16-bit halves (text, context)
  // narrowed to bytes by the typed-array conversion (native; little-endian everywhere Node runs), the
  // inverse of `widenTfs`. A JS loop over the entries ran cold in a save (issue 30).
  const tfBytes: Uint32Array | Uint16Array = narrow
    ? new Uint16Array(new Uint8Array(new Uint16Array(tfs.buffer, 0, 2 * n)).buffer, 0, n)
    : tfs;
  return pack({ terms }, [new Int32Array(ids), meta, slots, tfBytes, df]);
}

/** What `packPostings` took, the postings as views of the bytes; throws on ids at or past `terms` or postings past the part. */
export function unpackPostings(
  bytes: Uint8Array,
  terms: number,
): { terms: string[]; ids: Int32Array; postings: Posting[] } {
  const { meta, arrays } = unpack<{ terms: string[] }>(bytes);
  const [ids, counts, slots, tfBytes, df] = arrays as [Int32Array, Int32Array, Int32Array, PackedArray, Int32Array];
  const narrow = tfBytes instanceof Uint16Array ? tfBytes : undefined;
  const tfs = narrow ? EMPTY_TFS : (tfBytes as Uint32Array);
  if (!narrow && tfs.length !== slots.length) throw new RangeError('postings past the part');
  const postings: Posting[] = [];
  let at = 0;
  let dfAt = 0;
  meta.terms.forEach((_, i) => {
    const n = counts[i * 4]!;
    const dfLength = counts[i * 4 + 3]!;
    if (ids[i]! < 0 || ids[i]! >= terms || at + n > slots.length || dfAt + dfLength > df.length)
      throw new RangeError('postings past the part');
    if (narrow && at + n > narrow.length) throw new RangeError('postings past the part');
    // Views of the part: a posting that grows is copied out first (post), compaction rewrites
    // only its own range.
    postings.push(
      new Posting(
        slots.subarray(at, at + n),
        narrow ? tfs : tfs.subarray(at, at + n),
        n,
        df.subarray(dfAt, dfAt + dfLength),
        counts[i * 4 + 1]!,
        counts[i * 4 + 2]!,
        narrow?.subarray(at, at + n),
      ),
    );
    at += n;
    dfAt += dfLength;
  });
  return { terms: meta.terms, ids, postings };
}

const EMPTY_TFS = new Uint32Array(0);

/** The posting with its frequencies widened, when they are still the saved two-byte ones (once: it is changed in place). */
export function widened(p: Posting): Posting {
  if (p.narrowTfs) {
    p.tfs = widenTfs(p.narrowTfs);
    p.narrowTfs = undefined;
  }
  return p;
}

/** Frequencies saved in two bytes (text | context << 8) as the packed (text | context << 16) the postings hold. */
function widenTfs(packed: Uint16Array): Uint32Array {
  // Each byte widened to 16 bits by the typed-array conversion (native): text, context → text | context << 16
  // in little-endian words (typed arrays are little-endian everywhere Node runs). A JS loop over the entries
  // ran in the interpreter on a cold start and was then compiled by TurboFan on the spot (~3 ms at 100k).
  const widened = new Uint16Array(new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength));
  return new Uint32Array(widened.buffer, 0, packed.length);
}

/** Strings one a line when none holds a line break (a split is much cheaper than JSON.parse), else JSON. */
export function packStrings(values: readonly (string | undefined)[]): Uint8Array {
  const list = values.map((v) => v ?? '');
  const lines = !list.some((v) => v.includes('\n'));
  return pack({ lines }, [ENCODER.encode(lines ? list.join('\n') : JSON.stringify(list))]);
}

export function unpackStrings(bytes: Uint8Array): string[] {
  const { meta, arrays } = unpack<{ lines: boolean }>(bytes);
  const text = UTF8.decode(arrays[0]);
  if (text.length === 0 && meta.lines) return [''];
  return meta.lines ? text.split('\n') : (JSON.parse(text) as string[]);
}

/**
 * Each slot's rank in the order of its id (UTF-16 code units, as `<` compares; a rewritten id's dead
 * slots and its live one by slot: the sort is stable). Sorted as an array: its sort (TimSort) takes
 * ids already in order, as time-ordered ids written in order are, in one comparison a slot, where a
 * typed array's (a merge sort) took ~7 (issue 30: most of a save at 20k documents).
 */
export function idRanks(ids: readonly (string | null | undefined)[], used: number): Int32Array {
  const bySlot: number[] = new Array(used);
  for (let s = 0; s < used; s++) bySlot[s] = s;
  bySlot.sort((a, b) => {
    const x = ids[a] ?? '';
    const y = ids[b] ?? '';
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const rank = new Int32Array(used);
  for (let r = 0; r < used; r++) rank[bySlot[r]!] = r;
  return rank;
}
