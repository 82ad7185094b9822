import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBackendConformance } from '@agentmem/core/testing';
import { afterAll, describe, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend';

const capabilities = {
  nativeHybrid: false,
  textSearch: true,
  transactions: true,
  persistent: true,
  snapshot: false,
  readonly: false,
  links: true,
  partialHits: true,
};
const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-conformance-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runBackendConformance(
  {
    name: 'SqliteBackend (file)',
    create: async () => new SqliteBackend({ path: join(dir, `store-${n++}.db`) }),
    reopen: async (backend) => {
      const path = (backend as SqliteBackend).path;
      await backend.close();
      return new SqliteBackend({ path });
    },
    capabilities,
  },
  { describe, it },
);

runBackendConformance(
  { name: 'SqliteBackend (:memory:)', create: async () => new SqliteBackend({ path: ':memory:' }), capabilities },
  { describe, it },
);
