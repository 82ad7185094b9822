import assert from 'node:assert/strict';
// The package's own name, not relative paths: the built testing entry imports core instead of bundling a copy.
import type { BackendRecord, MemoryBackend, RecordFilter, SearchHit } from '@agentmem/core';

/** What the partial-hits case needs from the suite: a case registrar, a record maker, a vector maker. */
export interface PartialCaseKit {
  add: (name: string, fn: (b: MemoryBackend) => Promise<void>) => void;
  rec: (id: string, overrides?: Partial<BackendRecord>) => BackendRecord;
  unit: (...values: number[]) => Float32Array;
}

const NAMES = ['status', 'type', 'importance', 'agentId', 'absent'];

/** A whole hit as a partial search must give it: id, scope and the named attributes (null ones left out). */
function asPartial(hit: SearchHit): unknown {
  const attributes: Record<string, unknown> = {};
  for (const name of NAMES) {
    const value = hit.record.attributes[name];
    if (value !== undefined && value !== null) attributes[name] = value;
  }
  const { id, namespace, tenant } = hit.record;
  return { score: hit.score, record: { id, namespace, tenant, text: '', attributes, payload: {} } };
}

/** The case of backends whose capabilities say `partialHits` (`SearchRequest.partial`). */
export function partialHitsConformanceCases(kit: PartialCaseKit): void {
  const { add, rec, unit } = kit;
  add(
    "partialHits: a partial dense search gives the whole search's hits, with id, scope and the named attributes only",
    async (b) => {
      const records: BackendRecord[] = [];
      for (let i = 0; i < 60; i++) {
        records.push(
          rec(`p${String(i).padStart(2, '0')}`, {
            namespace: i % 3 === 0 ? 'other' : 'ns',
            tenant: i % 4 === 0 ? 'acme' : '',
            context: `context ${i}`,
            links: [`key${i % 5}`],
            // Pairs of equal vectors: ties, which both searches must break alike.
            vector: unit(1, (i >> 1) % 7, (i >> 1) % 3),
            attributes: {
              kind: 'memory',
              status: i % 5 === 0 ? 'pruned' : 'active',
              type: i % 2 === 0 ? 'user' : 'project',
              importance: i / 60,
              agentId: null,
            },
            payload: { id: `p${i}`, content: `memory ${i}` },
          }),
        );
      }
      await b.upsert(records);
      const filters: RecordFilter[] = [
        { tenant: '' },
        { tenant: 'acme' },
        { tenant: null, namespaces: ['ns'] },
        { tenant: '', where: { status: 'active' } },
        // Few match: a backend may search them exactly, by another path.
        { tenant: '', namespaces: ['other'], where: { status: 'pruned' } },
      ];
      for (const filter of filters) {
        for (const k of [1, 7, 60]) {
          const request = { mode: 'dense' as const, vector: unit(1, 2, 1), filter, k };
          const whole = await b.search(request);
          const partial = await b.search({ ...request, partial: { attributes: NAMES } });
          assert.ok(whole.length > 0, `the whole search must find something (${JSON.stringify(filter)})`);
          assert.deepEqual(
            partial.map((h) => ({ score: h.score, record: h.record })),
            whole.map(asPartial),
            `partial hits must be the whole search's, cut to id, scope and ${NAMES} (${JSON.stringify(filter)}, k ${k})`,
          );
        }
      }
    },
  );
}
