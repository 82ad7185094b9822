import { FakeEmbedder } from '@agentmem/core/testing';
import { createQdrantMemory } from '@agentmem/qdrant';
import { sqliteSnapshotFormat } from '@agentmem/sqlite';
import { teleportCases } from '../teleport/backend-teleport';
import { describeWithSpec, useFakeQdrant } from './helpers';

describeWithSpec('Teleport with a Qdrant store: snapshot to the portable file, merge back (fake Qdrant)', () => {
  const ctx = useFakeQdrant();
  let n = 0;
  teleportCases('qdrant', (options) =>
    createQdrantMemory({
      url: ctx.fake.url,
      collection: `teleport_${++n}`,
      checkCompatibility: false,
      embedder: new FakeEmbedder(),
      snapshotFormat: sqliteSnapshotFormat,
      ...options,
    }),
  );
});
