import { createHash, randomBytes } from 'node:crypto';

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

/**
 * Time-sortable random id: 48-bit millisecond time, a per-process sequence
 * (so ids made in the same millisecond keep their order), 40 random bits.
 */
export function newId(prefix: string, now = Date.now()): string {
  const time = Math.max(now, lastTime);
  sequence = time === lastTime ? sequence + 1 : 0;
  lastTime = time;
  let rand = '';
  for (const b of randomBytes(8)) rand += ALPHABET[b % 32];
  return `${prefix}_${base32(time, 10)}${base32(sequence, 4)}${rand}`;
}

/** Deterministic id from parts (same parts, same id). */
export function stableId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 26)}`;
}
