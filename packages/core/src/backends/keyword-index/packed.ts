// The byte layout of the keyword index's saved parts: a JSON header naming the typed arrays that
// follow, each 8-byte aligned, so a reader takes views of the bytes instead of decoding them.

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

/** `meta` (JSON) and the arrays, as one byte string. */
export function pack(meta: unknown, arrays: readonly PackedArray[]): Uint8Array {
  const header = new TextEncoder().encode(
    JSON.stringify({ meta, arrays: arrays.map((a) => [a.constructor.name, a.length]) }),
  );
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
  const h = JSON.parse(new TextDecoder().decode(data.subarray(8, 8 + headerLength))) as {
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
  let max = 0;
  for (let i = 0; i < values.length; i++) {
    if (values[i]! < 0) return values;
    if (values[i]! > max) max = values[i]!;
  }
  if (max <= 0xff) return Uint8Array.from(values);
  return max <= 0xffff ? Uint16Array.from(values) : values;
}

/** FNV-1a of a term's UTF-16 code units: which part holds its postings. Part of the saved format. */
export function bucketOf(term: string, buckets: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193);
  return (h >>> 0) % buckets;
}
