import { AgentMemoryError, type MemoryBackend, type RecordPatch } from '@agentmem/core';

/** What every refused write says: how to get a writable inspector. */
export const READ_ONLY_MESSAGE =
  'The inspector is read-only: restart it with `agentmem inspect --allow-writes` to apply merges, decay or undo.';

function refuse(): never {
  throw new AgentMemoryError('CAPABILITY_MISSING', READ_ONLY_MESSAGE);
}

/** recall() reinforces its results by patching only `lastAccessedAt`; looking at a ranking must not change it. */
function isReinforcement(patches: readonly RecordPatch[]): boolean {
  return patches.every((p) => {
    const keys = Object.keys(p.attributes ?? {});
    return keys.length === 1 && keys[0] === 'lastAccessedAt';
  });
}

/**
 * The same backend with every data write refused, except recall's
 * reinforcement, which is dropped: the inspector explains recall and
 * `contextFor` exactly as they run, without moving anyone's decay clock.
 */
export function readOnlyBackend(backend: MemoryBackend): MemoryBackend {
  return {
    specificationVersion: backend.specificationVersion,
    provider: backend.provider,
    capabilities: backend.capabilities,
    init: (options) => backend.init(options),
    upsert: async () => refuse(),
    patch: async (patches) => (isReinforcement(patches) ? 0 : refuse()),
    get: (ids, options) => backend.get(ids, options),
    delete: async () => refuse(),
    scan: (options) => backend.scan(options),
    search: (request) => backend.search(request),
    ...(backend.linked ? { linked: (query) => backend.linked!(query) } : {}),
    ...(backend.linkKeys ? { linkKeys: (options) => backend.linkKeys!(options) } : {}),
    count: (filter) => backend.count(filter),
    namespaces: (options) => backend.namespaces(options),
    getMeta: (key) => backend.getMeta(key),
    // Only written on a store that has no embedder recorded yet (a new, empty one).
    setMeta: (key, value) => backend.setMeta(key, value),
    // Reads need no transaction; a write inside one is refused above anyway.
    transaction: <T>(fn: () => Promise<T>) => fn(),
    // The inspector does not own the store: whoever opened it closes it.
    close: async () => {},
  };
}
