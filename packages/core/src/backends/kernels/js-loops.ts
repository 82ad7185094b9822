/** The JS loops BinaryIndex runs where its WebAssembly SIMD kernels (kernels.wat) cannot. */

/** The sum of the four bytes (a multiply would wrap once the sum passed 255). */
function addBytes(bytes: number): number {
  const halves = (bytes & 0x00ff00ff) + ((bytes >>> 8) & 0x00ff00ff);
  return (halves & 0xffff) + (halves >>> 16);
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** The JS loop of the `within` kernel: positions i < n whose distance (at `distances + i`) is <= threshold. */
export function within(
  distances: Uint16Array,
  from: number,
  n: number,
  threshold: number,
  out: Uint32Array,
  at: number,
): number {
  let found = 0;
  for (let i = 0; i < n; i++) if (distances[from + i]! <= threshold) out[at + found++] = i;
  return found;
}

/**
 * The JS loop, where the SIMD kernels cannot run (or the codes lie outside
 * their memory). Hamming distances of n codes (from word `codes` of `mem`,
 * `stride` words apart) to the query (at word `q` of `query`), into out from
 * `at`, counted in the histogram (at word `histogram` of `counts`): three
 * words at a time, then word by word.
 */
export function hammingScan(
  mem: Uint32Array,
  codes: number,
  n: number,
  query: Uint32Array,
  q: number,
  words: number,
  stride: number,
  out: Uint16Array,
  at: number,
  counts: Uint32Array,
  histogram: number,
): void {
  for (let i = 0, o = codes; i < n; i++, o += stride) {
    let d = 0;
    let bytes = 0;
    let groups = 0;
    let j = 0;
    for (; j + 3 <= words; j += 3) {
      bytes += bytesSum(
        mem[o + j]! ^ query[q + j]!,
        mem[o + j + 1]! ^ query[q + j + 1]!,
        mem[o + j + 2]! ^ query[q + j + 2]!,
      );
      if (++groups === 10) {
        d += addBytes(bytes);
        bytes = 0;
        groups = 0;
      }
    }
    d += addBytes(bytes);
    for (; j < words; j++) d += popcount(mem[o + j]! ^ query[q + j]!);
    out[at++] = d;
    counts[histogram + d]!++;
  }
}

/**
 * The set bits of three words, as four byte counts in one number: their 2-bit
 * counts summed per nibble (at most 12, no carry), folded into bytes (at most
 * 24). Up to ten such sums can be added before a byte could pass 255.
 */
function bytesSum(x: number, y: number, z: number): number {
  x -= (x >>> 1) & 0x55555555;
  y -= (y >>> 1) & 0x55555555;
  z -= (z >>> 1) & 0x55555555;
  const s =
    (x & 0x33333333) +
    ((x >>> 2) & 0x33333333) +
    (y & 0x33333333) +
    ((y >>> 2) & 0x33333333) +
    (z & 0x33333333) +
    ((z >>> 2) & 0x33333333);
  return (s & 0x0f0f0f0f) + ((s >>> 4) & 0x0f0f0f0f);
}
