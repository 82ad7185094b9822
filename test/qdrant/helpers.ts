import { unitVector } from '@agentmem/core/testing';
import { QdrantBackend, type QdrantBackendOptions } from '@agentmem/qdrant';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { FakeQdrant } from './fake-qdrant';
import { qdrantSpecAvailable, SPEC_MISSING } from './spec';

/** `describe` that skips, saying why, when Qdrant's OpenAPI spec is not available. */
export function describeWithSpec(name: string, fn: () => void): void {
  describe.skipIf(!qdrantSpecAvailable)(qdrantSpecAvailable ? name : `${name} (${SPEC_MISSING})`, fn);
}

let counter = 0;

/**
 * Starts a fake Qdrant for the enclosing describe and checks after every test
 * that no request broke Qdrant's OpenAPI spec.
 */
export function useFakeQdrant() {
  const ctx = {
    fake: undefined as unknown as FakeQdrant,
    backend(options: Partial<QdrantBackendOptions> = {}) {
      return new QdrantBackend({
        url: ctx.fake.url,
        collection: `test_${++counter}`,
        checkCompatibility: false,
        retry: { retries: 2, minDelayMs: 1, maxDelayMs: 5 },
        ...options,
      });
    },
  };
  beforeAll(async () => {
    ctx.fake = await FakeQdrant.start();
  });
  afterAll(async () => {
    await ctx.fake?.stop();
  });
  afterEach(() => {
    ctx.fake.clearFaults();
    const violations = [...ctx.fake.violations];
    ctx.fake.violations.length = 0;
    expect(violations).toEqual([]);
  });
  return ctx;
}

/** A unit vector: `unit(dim, 1, 0.5)`. */
export const unit = unitVector;
