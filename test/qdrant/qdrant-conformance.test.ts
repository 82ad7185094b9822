import { QdrantBackend } from '@agentmem/qdrant';
import { runBackendConformance } from '@agentmem/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeQdrant } from './fake-qdrant';
import { qdrantSpecAvailable, SPEC_MISSING } from './spec';

let fake: FakeQdrant;
let n = 0;

const suite = describe.skipIf(!qdrantSpecAvailable);

suite(
  qdrantSpecAvailable
    ? 'QdrantBackend on the fake Qdrant server'
    : `QdrantBackend on the fake Qdrant server (${SPEC_MISSING})`,
  () => {
    beforeAll(async () => {
      fake = await FakeQdrant.start();
    });
    afterAll(async () => {
      await fake?.stop();
    });
    afterEach(() => {
      // Every request the adapter sent must be one the real server accepts.
      expect(fake.violations).toEqual([]);
    });

    runBackendConformance(
      {
        name: 'QdrantBackend (fake server)',
        create: async () =>
          new QdrantBackend({
            url: fake.url,
            collection: `conformance_${++n}`,
            checkCompatibility: false,
            retry: { retries: 0 },
          }),
        reopen: async (backend) => {
          await backend.close();
          return new QdrantBackend({
            url: fake.url,
            collection: (backend as QdrantBackend).collection,
            checkCompatibility: false,
          });
        },
        capabilities: {
          nativeHybrid: true,
          textSearch: true,
          transactions: false,
          persistent: true,
          snapshot: false,
          readonly: false,
          links: true,
        },
      },
      { describe, it },
    );
  },
);
