import {
  type AgentMemory,
  type BackendRecord,
  type JsonObject,
  type RecordFilter,
  fusedRelevance,
  stableId,
} from '@agentmem/core';
import type {
  GetOperation,
  Item,
  ListNamespacesOperation,
  Operation,
  OperationResults,
  PutOperation,
  SearchItem,
  SearchOperation,
} from '@langchain/langgraph-checkpoint';
import { textsAtPath } from './index-text';
import { BaseStore, validateNamespace } from './langgraph-peer';
import { fromAgentmemNamespace, hasPrefix, toAgentmemNamespace } from './namespace-mapping';
import { matchesValueFilter } from './value-filter';

/** Record kind of LangGraph items in the backend. */
export const LANGGRAPH_ITEM_KIND = 'langgraph-item';

export interface AgentMemoryStoreOptions {
  /** The agentmem store to keep items in (its tenant isolates them). */
  memory: AgentMemory;
  /**
   * Fields of each value that are indexed for search (LangGraph's JSON paths,
   * e.g. `["text", "tags[*]"]`); default `["$"]`, the whole value. A put with
   * `index: false` stores the item without indexing it.
   */
  index?: { fields?: string[] };
}

interface StoredItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/**
 * A LangGraph `BaseStore` on agentmem: `createAgent({ store })` and tools that
 * read `runtime.store` get persistent long-term memory with hybrid (dense +
 * BM25) search, on the embedded SQLite default or on Qdrant.
 */
export class AgentMemoryStore extends BaseStore {
  private readonly memory: AgentMemory;
  private readonly fields: string[];

  constructor(options: AgentMemoryStoreOptions) {
    super();
    this.memory = options.memory;
    this.fields = options.index?.fields ?? ['$'];
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    await this.memory.init();
    const results: unknown[] = new Array(operations.length);
    // Puts are applied after reads of the same batch, last write per key winning, as LangGraph's stores do.
    const puts = new Map<string, PutOperation>();
    for (let i = 0; i < operations.length; i++) {
      const op = operations[i]!;
      if ('namespacePrefix' in op) results[i] = await this.searchOp(op);
      else if ('matchConditions' in op) results[i] = await this.listNamespacesOp(op);
      else if ('value' in op) {
        validateNamespace(op.namespace);
        puts.set(this.recordId(op.namespace, op.key), op);
        results[i] = undefined;
      } else {
        validateNamespace((op as GetOperation).namespace);
        results[i] = await this.getOp(op as GetOperation);
      }
    }
    if (puts.size > 0) await this.applyPuts([...puts.values()]);
    return results as OperationResults<Op>;
  }

  private recordId(namespace: readonly string[], key: string): string {
    return stableId('lg', this.memory.tenant, toAgentmemNamespace(namespace), key);
  }

  private toItem(record: BackendRecord): Item {
    const stored = record.payload as unknown as StoredItem;
    return {
      namespace: [...stored.namespace],
      key: stored.key,
      value: stored.value as Record<string, unknown>,
      createdAt: new Date(stored.createdAt),
      updatedAt: new Date(stored.updatedAt),
    };
  }

  private async getOp(op: GetOperation): Promise<Item | null> {
    const [record] = await this.memory.backend.get([this.recordId(op.namespace, op.key)], {
      tenant: this.memory.tenant,
    });
    return record && record.attributes.kind === LANGGRAPH_ITEM_KIND ? this.toItem(record) : null;
  }

  private texts(value: Record<string, unknown>, index: PutOperation['index']): string[] {
    if (index === false) return [];
    const paths = index === undefined || index === null ? this.fields : index;
    return paths.flatMap((path) => textsAtPath(value, path));
  }

  private async applyPuts(ops: PutOperation[]): Promise<void> {
    const ids = ops.map((op) => this.recordId(op.namespace, op.key));
    const existing = new Map(
      (await this.memory.backend.get(ids, { tenant: this.memory.tenant, withVectors: false })).map((r) => [r.id, r]),
    );
    const deletes = ops.filter((op) => op.value === null).map((op) => this.recordId(op.namespace, op.key));
    const writes = ops.filter((op) => op.value !== null);
    const texts = writes.map((op) => this.texts(op.value!, op.index).join('\n'));
    const toEmbed = texts.filter((t) => t.trim() !== '');
    const vectors = await this.memory.embedDocuments(toEmbed);
    const now = new Date().toISOString();
    let v = 0;
    const records: BackendRecord[] = writes.map((op, i) => {
      const id = this.recordId(op.namespace, op.key);
      const before = existing.get(id)?.payload as unknown as StoredItem | undefined;
      const stored: StoredItem = {
        namespace: [...op.namespace],
        key: op.key,
        value: op.value!,
        createdAt: before?.createdAt ?? now,
        updatedAt: now,
      };
      const record: BackendRecord = {
        id,
        namespace: toAgentmemNamespace(op.namespace),
        tenant: this.memory.tenant,
        text: texts[i]!,
        attributes: { kind: LANGGRAPH_ITEM_KIND, key: op.key, updatedAt: Date.parse(now) },
        payload: JSON.parse(JSON.stringify(stored)) as JsonObject,
      };
      if (texts[i]!.trim() !== '') record.vector = vectors[v++]!;
      return record;
    });
    await this.memory.transaction(async () => {
      if (deletes.length > 0) await this.memory.backend.delete(deletes);
      if (records.length > 0) await this.memory.backend.upsert(records);
    });
  }

  /** The agentmem namespaces under a LangGraph namespace prefix. */
  private async namespacesUnder(prefix: readonly string[]): Promise<{ namespace: string; tuple: string[] }[]> {
    const all = await this.memory.backend.namespaces({ tenant: this.memory.tenant });
    return all.flatMap((n) => {
      const tuple = fromAgentmemNamespace(n.namespace);
      return tuple && hasPrefix(tuple, prefix) ? [{ namespace: n.namespace, tuple }] : [];
    });
  }

  private async searchOp(op: SearchOperation): Promise<SearchItem[]> {
    if (op.namespacePrefix.length > 0) validateNamespace(op.namespacePrefix);
    const offset = op.offset ?? 0;
    const limit = op.limit ?? 10;
    const namespaces = (await this.namespacesUnder(op.namespacePrefix)).map((n) => n.namespace);
    if (namespaces.length === 0) return [];
    const filter: RecordFilter = { tenant: this.memory.tenant, namespaces, where: { kind: LANGGRAPH_ITEM_KIND } };
    const all = async () => {
      const items: Item[] = [];
      for await (const r of this.memory.scanRecords(filter)) {
        const item = this.toItem(r);
        if (matchesValueFilter(item.value, op.filter)) items.push(item);
      }
      // Most recently updated first, as LangGraph's database stores order a search without query.
      return items.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.key < b.key ? -1 : 1));
    };
    if (!op.query) return (await all()).slice(offset, offset + limit).map((item) => ({ ...item, score: undefined }));

    const want = offset + limit;
    const weights = this.memory.fusionWeights();
    let k = Math.max(want * 2, 20);
    let scored: SearchItem[] = [];
    for (;;) {
      const hits = await this.memory.searchRecords(op.query, { mode: 'hybrid', filter, k });
      scored = hits
        .map((h) => ({ ...this.toItem(h.record), score: fusedRelevance(h.score, weights.dense + weights.keyword) }))
        .filter((item) => matchesValueFilter(item.value, op.filter));
      if (scored.length >= want || hits.length < k) break;
      k *= 4; // the value filter dropped some: look further, never silently short
    }
    if (scored.length < want) {
      // Like LangGraph's stores, a query search still returns up to `limit` items: the rest unscored.
      const seen = new Set(scored.map((s) => `${s.namespace.join('\u0000')}\u0001${s.key}`));
      for (const item of await all()) {
        if (scored.length >= want) break;
        if (!seen.has(`${item.namespace.join('\u0000')}\u0001${item.key}`)) scored.push({ ...item, score: undefined });
      }
    }
    return scored.slice(offset, want);
  }

  private async listNamespacesOp(op: ListNamespacesOperation): Promise<string[][]> {
    let tuples = (await this.namespacesUnder([])).map((n) => n.tuple);
    for (const condition of op.matchConditions ?? []) {
      tuples = tuples.filter((t) => {
        if (condition.path.length > t.length) return false;
        const start = condition.matchType === 'prefix' ? 0 : t.length - condition.path.length;
        return condition.path.every((label, i) => label === '*' || t[start + i] === label);
      });
    }
    if (op.maxDepth !== undefined) tuples = tuples.map((t) => t.slice(0, op.maxDepth));
    const unique = [...new Map(tuples.map((t) => [JSON.stringify(t), t])).values()];
    unique.sort((a, b) => a.join(':').localeCompare(b.join(':')));
    return unique.slice(op.offset ?? 0, (op.offset ?? 0) + (op.limit ?? unique.length));
  }
}
