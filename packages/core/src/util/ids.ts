import { hash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

let lastTime = -1;
let sequence = 0;

function base32(value: number, length: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < length; i++) {
    out = ALPHABET[v % 32] + out;
    v = Math.floor(v / 32);
  }
  return out;
}

/** Random bytes drawn 4 KiB at a time: a randomBytes call per id was 5% of a decay run (one history id per prune). */
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomChunk(length: number): Buffer {
  if (poolOffset + length > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  poolOffset += length;
  return pool.subarray(poolOffset - length, poolOffset);
}

/**
 * Time-sortable random id: 48-bit millisecond time, a per-process sequence
 * (so ids made in the same millisecond keep their order), 40 random bits.
 */
export function newId(prefix: string, now = Date.now()): string {
  const time = Math.max(now, lastTime);
  sequence = time === lastTime ? sequence + 1 : 0;
  lastTime = time;
  let rand = '';
  for (const b of randomChunk(8)) rand += ALPHABET[b % 32];
  return `${prefix}_${base32(time, 10)}${base32(sequence, 4)}${rand}`;
}

/** Deterministic id from parts (same parts, same id). */
export function stableId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${hash('sha256', parts.join('\u0000'), 'hex').slice(0, 26)}`;
}
