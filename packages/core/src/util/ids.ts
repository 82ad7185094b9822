import { hash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

let lastTime = -1;
let sequence = 0;

const ALPHABET_CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));

/** An id's 22 characters as char codes, filled in place: strings joined a character at a time were most of an id's garbage. */
const idCodes: number[] = new Array(22).fill(0);

/** Writes `length` base32 digits of `value` ending before `end` (most significant first). */
function base32Into(value: number, end: number, length: number): void {
  let v = value;
  for (let i = end - 1; i >= end - length; i--) {
    idCodes[i] = ALPHABET_CODES[v % 32]!;
    v = Math.floor(v / 32);
  }
}

/** Random bytes drawn 4 KiB at a time: a randomBytes call per id was 5% of a decay run (one history id per prune). */
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** Where `length` fresh random bytes start in `pool`. */
function randomOffset(length: number): number {
  if (poolOffset + length > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  poolOffset += length;
  return poolOffset - length;
}

/**
 * Time-sortable random id: 48-bit millisecond time, a per-process sequence
 * (so ids made in the same millisecond keep their order), 40 random bits.
 */
export function newId(prefix: string, now = Date.now()): string {
  const time = Math.max(now, lastTime);
  sequence = time === lastTime ? sequence + 1 : 0;
  lastTime = time;
  base32Into(time, 10, 10);
  base32Into(sequence, 14, 4);
  const random = randomOffset(8);
  for (let i = 0; i < 8; i++) idCodes[14 + i] = ALPHABET_CODES[pool[random + i]! % 32]!;
  return `${prefix}_${String.fromCharCode.apply(null, idCodes)}`;
}

/** Deterministic id from parts (same parts, same id). */
export function stableId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${hash('sha256', parts.join('\u0000'), 'hex').slice(0, 26)}`;
}
