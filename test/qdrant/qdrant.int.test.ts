import { runBackendConformance } from '@agentmem/core/testing';
import { QdrantBackend } from '@agentmem/qdrant';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, describe, it } from 'vitest';

/**
 * The conformance suite against a real Qdrant. Skipped unless QDRANT_URL is set:
 *   docker run --rm -p 6333:6333 qdrant/qdrant:v1.19.0
 *   QDRANT_URL=http://localhost:6333 npx vitest run test/qdrant/qdrant.int.test.ts
 * (QDRANT_API_KEY too for a secured server). Collections are named agentmem_it_* and deleted afterwards.
 */
const url = process.env.QDRANT_URL;
const apiKey = process.env.QDRANT_API_KEY;
const run = `agentmem_it_${Date.now().toString(36)}`;
const created: string[] = [];
let n = 0;

describe.skipIf(!url)(
  url ? `QdrantBackend on a real Qdrant at ${url}` : 'QdrantBackend on a real Qdrant (skipped: set QDRANT_URL)',
  () => {
    afterAll(async () => {
      const client = new QdrantClient({ url: url!, apiKey, checkCompatibility: false });
      for (const name of created) await client.deleteCollection(name).catch(() => {});
    });

    runBackendConformance(
      {
        name: 'QdrantBackend (real server)',
        create: async () => {
          const collection = `${run}_${++n}`;
          created.push(collection);
          return new QdrantBackend({ url: url!, apiKey, collection, checkCompatibility: false });
        },
        reopen: async (backend) => {
          await backend.close();
          return new QdrantBackend({
            url: url!,
            apiKey,
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
