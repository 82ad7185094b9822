import type { BackendRecord, JsonObject } from '@agentmem/core';
import { describe, expect, it } from 'vitest';
import { encodeRecord, type PayloadTexts } from './record-codec';

const record = (id: string, payload: unknown): BackendRecord => ({
  id,
  namespace: 'n',
  tenant: '',
  text: '',
  attributes: {},
  payload: payload as JsonObject,
});

describe('payload JSON of one write', () => {
  it('is JSON.stringify of each payload, whether it reuses an encoded copy or not', () => {
    const memory = { id: 'm', content: 'café "quoted"', tags: ['a'], metadata: { nested: { deep: [1, null] } } };
    const other = { x: 1 };
    const payloads: (Record<string, unknown> | unknown)[] = [
      memory,
      { id: 'h1', memoryId: 'm', action: 'create', memory }, // composed from memory's text
      { memory, extra: other }, // a known copy, then an object never encoded: encoded whole
      { extra: other, memory }, // the other order
      { memory, skipped: undefined, fn: () => 1, n: 1.5, b: false, nil: null }, // what JSON.stringify leaves out
      { memory, when: new Date(0) }, // an object with toJSON inside
      { memory, list: [memory] }, // the copy inside an array
      Object.assign(Object.create(null), { memory, k: 'v' }), // no prototype
      { '"odd key"\n': 1, memory },
      { deep: { memory } },
    ];
    const texts: PayloadTexts = new Map();
    for (const [i, payload] of payloads.entries()) {
      expect(encodeRecord(record(`r${i}`, payload), texts).payload).toBe(JSON.stringify(payload));
    }
  });

  it('throws as JSON.stringify does for a value it cannot encode', () => {
    const memory = { id: 'm' };
    const texts: PayloadTexts = new Map();
    encodeRecord(record('m', memory), texts);
    expect(() => encodeRecord(record('h', { memory, big: 1n }), texts)).toThrow(TypeError);
  });
});
