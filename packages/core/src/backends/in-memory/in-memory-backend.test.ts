import { describe, it } from 'vitest';
import { runBackendConformance } from '../../testing';
import { InMemoryBackend } from './in-memory-backend';

runBackendConformance(
  {
    name: 'InMemoryBackend',
    create: async () => new InMemoryBackend(),
    capabilities: { nativeHybrid: false, textSearch: true, transactions: true, persistent: false, snapshot: false },
  },
  { describe, it },
);
