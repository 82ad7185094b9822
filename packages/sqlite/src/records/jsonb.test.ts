import type { AttributeValue } from '@agentmem/core';
import { seededRandom } from '@agentmem/core/testing';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../schema';
import { encodeAttributes, encodeBytes } from './jsonb';

describe('attributes encoded as JSONB in JavaScript', () => {
  const db = openDatabase(':memory:');
  const sqlite = db.prepare('SELECT jsonb(?) AS b');
  const read = db.prepare('SELECT json(?) AS text, json_valid(?, 8) AS valid, json_type(?) AS type');

  const cases: Record<string, AttributeValue>[] = [
    {},
    {
      kind: 'memory',
      status: 'active',
      importance: 0.5,
      createdAt: 1764547200000,
      agentId: null,
      flag: true,
      off: false,
    },
    { n: 0, neg: -12, big: 2 ** 53, huge: 1e21, tiny: 5e-324, frac: -0.1 },
    {
      quote: 'say "hi"',
      slash: 'a\\b',
      nl: 'line\nbreak',
      tab: '\t',
      nul: '\u0000x',
      accents: 'café ☕ 日本',
      emoji: '🙂',
    },
    { lone: '\ud800 half', 'key with spaces': 'v', 'ké\ny': 1 },
    { long: 'x'.repeat(300), longer: 'y'.repeat(70_000) },
    // Around the short-ASCII and digit fast paths' bounds (header sizes, the longest string they take).
    { a11: 'a'.repeat(11), a12: 'b'.repeat(12), a96: 'c'.repeat(96), a97: 'd'.repeat(97), del: 'x\u007f', k: 'é' },
    { i11: 12345678901, i12: -12345678901, max: Number.MAX_SAFE_INTEGER, min: -Number.MAX_SAFE_INTEGER, z: -0 },
    // Numbers that come back (the encoder keeps the last two numbers' bytes): each still its own.
    { a: 0.5, b: 1764547200000, c: 1764547200000, d: 0.5, e: 7, f: 0.5, g: 1764547200000, h: 7, i: -0, j: 0 },
    { a: 1764547200000, b: 0.5, c: 0.25, d: 1764547200000, e: 0.5 },
  ];

  it('reads back as the same JSON, valid JSONB, byte for byte what jsonb() writes when nothing needs escaping', () => {
    for (const attributes of cases) {
      const blob = encodeAttributes(attributes);
      const row = read.get(blob, blob, blob) as { text: string; valid: number; type: string };
      expect(row.valid).toBe(1);
      expect(row.type).toBe('object');
      expect(JSON.parse(row.text)).toEqual(JSON.parse(JSON.stringify(attributes)));
      const escapes = Object.entries(attributes).some(
        ([k, v]) =>
          JSON.stringify(k + (typeof v === 'string' ? v : '')).length !==
          (k + (typeof v === 'string' ? v : '')).length + 2,
      );
      if (!escapes) expect(blob.equals((sqlite.get(JSON.stringify(attributes)) as { b: Buffer }).b)).toBe(true);
    }
  });

  it('gives json_extract, ->> and jsonb_set the values JSON text would', () => {
    const extract = db.prepare('SELECT json_extract(?, ?) AS a, json_extract(jsonb(?), ?) AS b');
    const random = seededRandom(3);
    const values: AttributeValue[] = [
      'plain',
      'with "quote"',
      'tab\there',
      '\ud83d',
      'ünï',
      0,
      -1,
      1.25,
      1e300,
      true,
      false,
      null,
    ];
    for (let i = 0; i < 200; i++) {
      const attributes: Record<string, AttributeValue> = {};
      const keys = 1 + Math.floor(random() * 8);
      for (let k = 0; k < keys; k++)
        attributes[`k${k}${random() < 0.2 ? ' é' : ''}`] = values[Math.floor(random() * values.length)]!;
      const blob = encodeAttributes(attributes);
      for (const key of Object.keys(attributes)) {
        const path = `$."${key}"`;
        const row = extract.get(blob, path, JSON.stringify(attributes), path) as { a: unknown; b: unknown };
        expect(row.a).toEqual(row.b);
      }
      const set = db.prepare("SELECT json(jsonb_set(?, '$.status', 'pruned')) AS j").get(blob) as { j: string };
      expect(JSON.parse(set.j)).toEqual({ ...JSON.parse(JSON.stringify(attributes)), status: 'pruned' });
    }
  });

  it('leaves out undefined values, as JSON.stringify does', () => {
    const blob = encodeAttributes({ a: 1, b: undefined, c: 'x' });
    expect(JSON.parse((read.get(blob, blob, blob) as { text: string }).text)).toEqual({ a: 1, c: 'x' });
  });

  it('writes the same bytes by its one-string path as byte by byte, for plain and other keys and values', () => {
    const random = seededRandom(5);
    const strings = [
      '',
      'memory',
      'a'.repeat(11),
      'b'.repeat(12),
      'c'.repeat(255),
      'd'.repeat(256),
      'x\u007f',
      'é',
      'q"',
      'b\\',
      '\n',
    ];
    const numbers = [0, -0, 7, -12, 1796665214997, 0.5, 1e21, -1.25e-7, 2 ** 53, Number.MAX_SAFE_INTEGER];
    const keys = ['kind', 'contentHash', 'k'.repeat(12), 'ké', 'a"b', 'x'.repeat(300)];
    for (let i = 0; i < 2000; i++) {
      const attributes: Record<string, AttributeValue | undefined> = {};
      const n = Math.floor(random() * 14);
      for (let k = 0; k < n; k++) {
        const key = random() < 0.8 ? `k${Math.floor(random() * 20)}` : keys[Math.floor(random() * keys.length)]!;
        const roll = random();
        attributes[key] =
          roll < 0.4
            ? strings[Math.floor(random() * strings.length)]!
            : roll < 0.8
              ? numbers[Math.floor(random() * numbers.length)]!
              : roll < 0.9
                ? [true, false, null][Math.floor(random() * 3)]!
                : random() < 0.5
                  ? undefined
                  : (random() * 1e6).toString(16);
      }
      // Past 64 KiB of payload too (headers of 3 and 5 bytes).
      if (i % 500 === 0) for (let k = 0; k < 300; k++) attributes[`long${k}`] = 'z'.repeat(255);
      expect(encodeAttributes(attributes).equals(encodeBytes(attributes))).toBe(true);
    }
  });
});
