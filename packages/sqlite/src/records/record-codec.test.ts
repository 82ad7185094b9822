import type { BackendRecord, JsonObject } from '@agentmem/core';
import { describe, expect, it } from 'vitest';
import { encodeRecord, type PayloadTexts, payloadTextsFor } from './record-codec';

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

describe('which writes keep payload texts', () => {
  it('keeps them only when a record holds another record of the write as a value', () => {
    const memories = [1, 2, 3].map((i) => record(`m${i}`, { id: `m${i}`, tags: [], metadata: {} }));
    // rememberMany's batch: memories only, each holding arrays and objects of its own.
    expect(payloadTextsFor(memories)).toBeUndefined();
    expect(payloadTextsFor([record('h', { memory: memories[0]!.payload })])).toBeUndefined();
    // writeMemories: the memories, then history entries holding them.
    const withHistory = [...memories, record('h1', { id: 'h1', memoryId: 'm1', memory: memories[0]!.payload })];
    expect(payloadTextsFor(withHistory)).toBeInstanceOf(Map);
    // Either way each payload's text is JSON.stringify's.
    for (const texts of [payloadTextsFor(memories), payloadTextsFor(withHistory)]) {
      for (const r of withHistory) expect(encodeRecord(r, texts).payload).toBe(JSON.stringify(r.payload));
    }
  });
});
