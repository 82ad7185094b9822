import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadQdrantSpec } from '../spec';
import { OpenApiValidator } from './openapi-validator';
import { type Filter, type Json, matchesFilter, UnsupportedByFake, valuesAt } from './qdrant-filter';

type PointId = string | number;
type Sparse = { indices: number[]; values: number[] };

interface StoredPoint {
  id: PointId;
  key: string;
  dense: Map<string, number[]>;
  sparse: Map<string, Sparse>;
  payload: Record<string, Json>;
  version: number;
}

interface Collection {
  name: string;
  vectors: Record<string, { size: number; distance: string }>;
  sparse: Record<string, { modifier?: string | null }>;
  metadata: Record<string, Json>;
  payloadSchema: Record<string, { data_type: string; params?: Record<string, unknown> }>;
  points: Map<string, StoredPoint>;
  config: { shard_number: number; replication_factor: number; write_consistency_factor: number };
}

/** What one request looked like (for assertions on what the adapter sends). */
export interface RecordedRequest {
  method: string;
  path: string;
  operationId: string;
  query: Record<string, string>;
  body: unknown;
}

/** A fault the next matching requests meet instead of (or before) a normal answer. */
export interface Fault {
  /** Which requests; default every one. */
  match?: (request: RecordedRequest) => boolean;
  /** How many matching requests it hits; default 1. */
  times?: number;
  /** Answer with this HTTP status and Qdrant error body instead of handling the request. */
  status?: number;
  error?: string;
  /** Sent as Retry-After (seconds) with a 429. */
  retryAfter?: number;
  /** Wait this long, then handle the request normally (a slow server: the client may time out first). */
  delayMs?: number;
  /** Close the connection without answering. */
  drop?: boolean;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const RRF_DEFAULT_K = 2;

/**
 * A small in-process Qdrant: the REST endpoints the agentmem adapter uses,
 * with Qdrant's semantics, and every request validated against Qdrant's own
 * OpenAPI spec. A request the real server would reject is answered 400 and
 * recorded in `violations` (tests assert it stays empty). Faults can be
 * injected for retry tests.
 */
export class FakeQdrant {
  readonly collections = new Map<string, Collection>();
  readonly requests: RecordedRequest[] = [];
  /** Requests the real server would reject, and fake answers that break the spec. */
  readonly violations: string[] = [];
  private readonly validator: OpenApiValidator;
  private readonly faults: (Fault & { left: number })[] = [];
  private server: Server | undefined;
  private operationId = 0;
  url = '';

  constructor() {
    this.validator = new OpenApiValidator(loadQdrantSpec());
  }

  static async start(): Promise<FakeQdrant> {
    const fake = new FakeQdrant();
    await fake.listen();
    return fake;
  }

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error) => {
        this.violations.push(`fake crashed: ${(error as Error).stack}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault, left: fault.times ?? 1 });
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  requestsFor(operationId: string): RecordedRequest[] {
    return this.requests.filter((r) => r.operationId === operationId);
  }

  // ------------------------------------------------------------------ HTTP

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = await readBody(req);
    const started = performance.now();
    const send = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const payload = { ...body, time: (performance.now() - started) / 1000 };
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
    };
    const fail = (status: number, error: string, headers?: Record<string, string>) =>
      send(status, { status: { error } }, headers);

    const matched = this.validator.match(req.method ?? 'GET', url.pathname);
    if (!matched) {
      this.violations.push(`no such endpoint: ${req.method} ${url.pathname}`);
      return fail(404, `Not found: ${req.method} ${url.pathname}`);
    }
    const { op, params } = matched;
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        this.violations.push(`${op.operationId}: body is not JSON`);
        return fail(400, 'Json deserialize error: invalid JSON');
      }
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      operationId: op.operationId,
      query: Object.fromEntries(url.searchParams),
      body,
    };
    this.requests.push(recorded);

    const fault = this.faults.find((f) => f.left > 0 && (f.match?.(recorded) ?? true));
    if (fault) {
      fault.left--;
      if (fault.drop) {
        req.socket.destroy();
        return;
      }
      if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (fault.status) {
        const headers: Record<string, string> =
          fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
        return fail(fault.status, fault.error ?? `Service internal error: injected ${fault.status}`, headers);
      }
    }

    const problems = this.validator.validateRequest(op, url.searchParams, body, raw.length > 0);
    if (problems.length > 0) {
      this.violations.push(...problems.map((p) => `${op.operationId}: ${p}`));
      return fail(400, `Validation error in JSON body: ${problems.join('; ')}`);
    }
    if (op.operationId === 'root')
      return send(200, { title: 'qdrant - vector search engine', version: this.validator.version });
    try {
      const result = this.dispatch(op.operationId, params, body as Record<string, unknown>);
      const response = { result, status: 'ok', time: 0 };
      const wrong = this.validator.validateResponse(op, response);
      if (wrong.length > 0) this.violations.push(...wrong);
      send(200, { result, status: 'ok' });
    } catch (error) {
      if (error instanceof HttpError) return fail(error.status, error.message);
      if (error instanceof UnsupportedByFake) {
        this.violations.push(`${op.operationId}: the fake does not implement ${error.message}`);
        return fail(501, `Fake Qdrant does not implement ${error.message}`);
      }
      throw error;
    }
  }

  private dispatch(operationId: string, params: Record<string, string>, body: Record<string, unknown>): unknown {
    const name = params.collection_name!;
    switch (operationId) {
      case 'collection_exists':
        return { exists: this.collections.has(name) };
      case 'get_collection':
        return this.info(this.collection(name));
      case 'create_collection':
        return this.createCollection(name, body ?? {});
      case 'update_collection':
        return this.updateCollection(this.collection(name), body ?? {});
      case 'delete_collection':
        return this.collections.delete(name);
      case 'create_field_index':
        return this.createIndex(this.collection(name), body);
      case 'upsert_points':
        return this.updated(this.upsert(this.collection(name), body));
      case 'get_points':
        return this.retrieve(this.collection(name), body);
      case 'delete_points':
        return this.updated(this.deletePoints(this.collection(name), body));
      case 'set_payload':
        return this.updated(this.setPayload(this.collection(name), body));
      case 'overwrite_payload':
        return this.updated(this.setPayload(this.collection(name), body, true));
      case 'batch_update':
        return this.batch(this.collection(name), body);
      case 'scroll_points':
        return this.scroll(this.collection(name), body ?? {});
      case 'count_points':
        return { count: this.filtered(this.collection(name), body?.filter as Filter).length };
      case 'facet':
        return this.facet(this.collection(name), body);
      case 'query_points':
        return { points: this.query(this.collection(name), body ?? {}) };
      case 'query_batch_points':
        return (body.searches as Record<string, unknown>[]).map((s) => ({
          points: this.query(this.collection(name), s),
        }));
      default:
        throw new UnsupportedByFake(`operation ${operationId}`);
    }
  }

  // ----------------------------------------------------------- collections

  private collection(name: string): Collection {
    const c = this.collections.get(name);
    if (!c) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return c;
  }

  private createCollection(name: string, body: Record<string, unknown>): boolean {
    if (this.collections.has(name)) throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
    const vectors = body.vectors as Record<string, unknown> | undefined;
    let named: Collection['vectors'] = {};
    if (vectors && typeof vectors.size === 'number') named = { '': vectors as { size: number; distance: string } };
    else if (vectors) named = vectors as Collection['vectors'];
    this.collections.set(name, {
      name,
      vectors: named,
      sparse: (body.sparse_vectors as Collection['sparse']) ?? {},
      metadata: (body.metadata as Record<string, Json>) ?? {},
      payloadSchema: {},
      points: new Map(),
      config: {
        shard_number: (body.shard_number as number) ?? 1,
        replication_factor: (body.replication_factor as number) ?? 1,
        write_consistency_factor: (body.write_consistency_factor as number) ?? 1,
      },
    });
    return true;
  }

  private updateCollection(c: Collection, body: Record<string, unknown>): boolean {
    const metadata = body.metadata as Record<string, Json> | null | undefined;
    for (const [k, v] of Object.entries(metadata ?? {})) {
      if (v === null) delete c.metadata[k];
      else c.metadata[k] = v;
    }
    return true;
  }

  private info(c: Collection): unknown {
    const vectors = '' in c.vectors ? c.vectors['']! : c.vectors;
    const payloadSchema: Record<string, unknown> = {};
    for (const [field, s] of Object.entries(c.payloadSchema)) {
      const points = [...c.points.values()].filter((p) => valuesAt(p.payload, field).length > 0).length;
      payloadSchema[field] = s.params
        ? { data_type: s.data_type, params: s.params, points }
        : { data_type: s.data_type, points };
    }
    return {
      status: 'green',
      optimizer_status: 'ok',
      points_count: c.points.size,
      indexed_vectors_count: 0,
      segments_count: 1,
      config: {
        params: { vectors, sparse_vectors: c.sparse, ...c.config, on_disk_payload: true },
        hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000 },
        optimizer_config: {
          deleted_threshold: 0.2,
          vacuum_min_vector_number: 1000,
          default_segment_number: 0,
          flush_interval_sec: 5,
        },
        metadata: c.metadata,
      },
      payload_schema: payloadSchema,
    };
  }

  private createIndex(c: Collection, body: Record<string, unknown>): unknown {
    const schema = body.field_schema as string | { type: string } | null | undefined;
    if (!schema) throw new UnsupportedByFake('field index without field_schema');
    const field = body.field_name as string;
    c.payloadSchema[field] =
      typeof schema === 'string' ? { data_type: schema } : { data_type: schema.type, params: schema };
    return this.updated(undefined);
  }

  private updated(_: unknown): { operation_id: number; status: 'completed' } {
    return { operation_id: this.operationId++, status: 'completed' };
  }

  // ---------------------------------------------------------------- points

  private upsert(c: Collection, body: Record<string, unknown>): void {
    if (!('points' in body)) throw new UnsupportedByFake('batch-format upsert');
    const prepared = (body.points as { id: PointId; vector: unknown; payload?: Record<string, Json> | null }[]).map(
      (p) => this.preparePoint(c, p),
    );
    for (const p of prepared) c.points.set(p.key, p);
  }

  private preparePoint(
    c: Collection,
    p: { id: PointId; vector: unknown; payload?: Record<string, Json> | null },
  ): StoredPoint {
    const dense = new Map<string, number[]>();
    const sparse = new Map<string, Sparse>();
    const vectors = Array.isArray(p.vector) ? { '': p.vector } : (p.vector as Record<string, unknown>);
    for (const [name, v] of Object.entries(vectors)) {
      if (Array.isArray(v)) {
        const params = c.vectors[name];
        if (!params) throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
        if (v.length > 0 && Array.isArray(v[0])) throw new UnsupportedByFake('multivectors');
        if (v.length !== params.size) {
          throw new HttpError(
            400,
            `Wrong input: Vector dimension error: expected dim: ${params.size}, got ${v.length}`,
          );
        }
        dense.set(name, params.distance === 'Cosine' ? normalize(v as number[]) : [...(v as number[])]);
      } else if (v && typeof v === 'object' && 'indices' in v) {
        if (!c.sparse[name]) throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
        const s = v as Sparse;
        if (s.indices.length !== s.values.length) {
          throw new HttpError(
            422,
            'Validation error in JSON body: [points: indices and values must be the same length]',
          );
        }
        if (new Set(s.indices).size !== s.indices.length) {
          throw new HttpError(422, 'Validation error in JSON body: [points: indices must be unique]');
        }
        if (s.indices.length > 0) sparse.set(name, { indices: [...s.indices], values: [...s.values] });
      } else {
        throw new UnsupportedByFake('document/image/inference vectors');
      }
    }
    return {
      id: p.id,
      key: pointKey(p.id),
      dense,
      sparse,
      payload: structuredClone(p.payload ?? {}),
      version: this.operationId,
    };
  }

  private retrieve(c: Collection, body: Record<string, unknown>): unknown[] {
    const out: unknown[] = [];
    for (const id of body.ids as PointId[]) {
      const p = c.points.get(pointKey(id));
      if (p) out.push(this.render(c, p, body.with_payload ?? true, body.with_vector ?? false));
    }
    return out;
  }

  private deletePoints(c: Collection, body: Record<string, unknown>): void {
    for (const p of this.select(c, body)) c.points.delete(p.key);
  }

  private select(c: Collection, body: Record<string, unknown>): StoredPoint[] {
    if (Array.isArray(body.points)) {
      return (body.points as PointId[]).map((id) => c.points.get(pointKey(id))).filter((p): p is StoredPoint => !!p);
    }
    if (body.filter) return this.filtered(c, body.filter as Filter);
    throw new HttpError(400, 'Bad request: either points or filter must be given');
  }

  private setPayload(c: Collection, body: Record<string, unknown>, overwrite = false): void {
    const payload = body.payload as Record<string, Json>;
    for (const p of this.select(c, body)) {
      if (overwrite) {
        p.payload = structuredClone(payload);
        continue;
      }
      let target: Record<string, Json> = p.payload;
      if (typeof body.key === 'string') {
        for (const part of body.key.split('.')) {
          const next = target[part];
          if (next === null || typeof next !== 'object' || Array.isArray(next)) target[part] = {};
          target = target[part] as Record<string, Json>;
        }
      }
      Object.assign(target, structuredClone(payload));
    }
  }

  private batch(c: Collection, body: Record<string, unknown>): unknown[] {
    return (body.operations as Record<string, Record<string, unknown>>[]).map((op) => {
      if (op.upsert) this.upsert(c, op.upsert);
      else if (op.delete) this.deletePoints(c, op.delete);
      else if (op.set_payload) this.setPayload(c, op.set_payload);
      else if (op.overwrite_payload) this.setPayload(c, op.overwrite_payload, true);
      else throw new UnsupportedByFake(`batch operation ${Object.keys(op).join(',')}`);
      return this.updated(undefined);
    });
  }

  private filtered(c: Collection, filter: Filter | null | undefined): StoredPoint[] {
    return [...c.points.values()].filter((p) => matchesFilter(p, filter));
  }

  /** Points in id order; `offset` is inclusive; `next_page_offset` is the first id of the next page. */
  private scroll(c: Collection, body: Record<string, unknown>): unknown {
    if (body.order_by) throw new UnsupportedByFake('scroll order_by');
    const limit = (body.limit as number | null) ?? 10;
    const sorted = this.filtered(c, body.filter as Filter).sort(compareIds);
    const from = body.offset == null ? 0 : sorted.findIndex((p) => compareIds(p, { id: body.offset as PointId }) >= 0);
    const start = from === -1 ? sorted.length : from;
    const page = sorted.slice(start, start + limit);
    const next = sorted[start + limit];
    return {
      points: page.map((p) => this.render(c, p, body.with_payload ?? true, body.with_vector ?? false)),
      next_page_offset: next ? next.id : null,
    };
  }

  /** Distinct values of an indexed keyword/integer/bool field with their point counts. */
  private facet(c: Collection, body: Record<string, unknown>): unknown {
    const key = body.key as string;
    const index = c.payloadSchema[key];
    if (!index || !['keyword', 'integer', 'bool', 'uuid'].includes(index.data_type)) {
      throw new HttpError(
        400,
        `Bad request: Index required but not found for "${key}" of one of the following types: [keyword, integer, bool, uuid]. Help: Create an index for this key or use a different filter.`,
      );
    }
    const counts = new Map<string, { value: Json; count: number }>();
    for (const p of this.filtered(c, body.filter as Filter)) {
      for (const v of new Set(valuesAt(p.payload, key))) {
        if (v === null || typeof v === 'object') continue;
        const k = `${typeof v}:${v}`;
        const e = counts.get(k) ?? { value: v, count: 0 };
        e.count++;
        counts.set(k, e);
      }
    }
    const limit = (body.limit as number | null) ?? 10;
    const hits = [...counts.values()].sort(
      (a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)),
    );
    return { hits: hits.slice(0, limit) };
  }

  // ----------------------------------------------------------------- query

  private query(c: Collection, body: Record<string, unknown>): unknown[] {
    const scored = this.scored(c, body);
    const offset = (body.offset as number | null) ?? 0;
    const limit = (body.limit as number | null) ?? 10;
    return scored.slice(offset, offset + limit).map(({ point, score }) => ({
      ...(this.render(c, point, body.with_payload ?? false, body.with_vector ?? false) as object),
      score,
      version: point.version,
    }));
  }

  /**
   * Scored candidates of one (sub)query, best first. As in Qdrant's query
   * planner (`recurse_prefetches` in planned_query.rs: "Filters are propagated
   * into the leaves"), a query's filter is merged into every prefetch below it
   * and is not applied again to the merged result.
   */
  private scored(
    c: Collection,
    body: Record<string, unknown>,
    inherited?: Filter,
  ): { point: StoredPoint; score: number }[] {
    const own = (body.filter as Filter | null | undefined) ?? undefined;
    const filter: Filter | undefined = inherited && own ? { must: [inherited, own] } : (own ?? inherited);
    const prefetches = body.prefetch == null ? [] : Array.isArray(body.prefetch) ? body.prefetch : [body.prefetch];
    const query = body.query as Record<string, unknown> | unknown[] | undefined | null;
    const isFusion = !!query && !Array.isArray(query) && ('fusion' in query || 'rrf' in query);
    if (isFusion && body.using != null) {
      throw new HttpError(400, "Bad request: Fusion queries cannot be combined with the 'using' field.");
    }
    if (prefetches.length > 0) {
      if (query == null) {
        throw new HttpError(
          400,
          "Bad request: A query is needed to merge the prefetches. Can't have prefetches without defining a query.",
        );
      }
      const lists = (prefetches as Record<string, unknown>[]).map((p) => {
        const limit = (p.limit as number | null) ?? 10;
        return this.scored(c, p, filter).slice(0, limit);
      });
      if (!isFusion) throw new UnsupportedByFake('rescoring prefetches with a vector query');
      const q = query as Record<string, unknown>;
      if ('fusion' in q && q.fusion !== 'rrf') throw new UnsupportedByFake(`fusion ${String(q.fusion)}`);
      const rrf = ('rrf' in q ? q.rrf : {}) as { k?: number | null; weights?: number[] | null };
      return rrfFuse(lists, rrf.k ?? RRF_DEFAULT_K, rrf.weights ?? undefined);
    }
    if (isFusion) throw new HttpError(400, 'Bad request: cannot apply Fusion without prefetches');
    if (query == null) throw new UnsupportedByFake('query without a vector');
    const input = !Array.isArray(query) && 'nearest' in query ? query.nearest : query;
    const using = (body.using as string | null) ?? '';
    const candidates = this.filtered(c, filter);
    let scored: { point: StoredPoint; score: number }[];
    if (Array.isArray(input)) {
      const params = c.vectors[using];
      if (!params) throw new HttpError(400, `Wrong input: Not existing vector name error: ${using}`);
      if (input.length !== params.size) {
        throw new HttpError(
          400,
          `Wrong input: Vector dimension error: expected dim: ${params.size}, got ${input.length}`,
        );
      }
      if (params.distance !== 'Cosine') throw new UnsupportedByFake(`distance ${params.distance}`);
      const q = normalize(input as number[]);
      scored = candidates
        .filter((p) => p.dense.has(using))
        .map((p) => ({ point: p, score: dot(q, p.dense.get(using)!) }));
    } else if (input && typeof input === 'object' && 'indices' in input) {
      const params = c.sparse[using];
      if (!params) throw new HttpError(400, `Wrong input: Not existing vector name error: ${using}`);
      scored = this.sparseScores(c, using, input as Sparse, candidates, params.modifier === 'idf');
    } else {
      throw new UnsupportedByFake(`query ${JSON.stringify(query).slice(0, 80)}`);
    }
    const threshold = body.score_threshold as number | null | undefined;
    if (threshold != null) scored = scored.filter((s) => s.score >= threshold);
    return scored.sort((a, b) => b.score - a.score || compareIds(a.point, b.point));
  }

  /**
   * Dot product over shared indices; with the idf modifier each query weight
   * is multiplied by ln(1 + (N - n + 0.5) / (n + 0.5)) over the whole
   * collection (N points with this sparse vector, n of them with the index).
   * Only points sharing an index with the query are returned.
   */
  private sparseScores(c: Collection, using: string, q: Sparse, candidates: StoredPoint[], idf: boolean) {
    const weights = new Map<number, number>();
    q.indices.forEach((i, j) => {
      weights.set(i, q.values[j]!);
    });
    if (idf) {
      const all = [...c.points.values()].filter((p) => p.sparse.has(using));
      for (const [i, w] of weights) {
        const n = all.filter((p) => p.sparse.get(using)!.indices.includes(i)).length;
        weights.set(i, w * Math.log(1 + (all.length - n + 0.5) / (n + 0.5)));
      }
    }
    const out: { point: StoredPoint; score: number }[] = [];
    for (const p of candidates) {
      const v = p.sparse.get(using);
      if (!v) continue;
      let score = 0;
      let shared = false;
      v.indices.forEach((i, j) => {
        const w = weights.get(i);
        if (w !== undefined) {
          shared = true;
          score += w * v.values[j]!;
        }
      });
      if (shared) out.push({ point: p, score });
    }
    return out;
  }

  private render(c: Collection, p: StoredPoint, withPayload: unknown, withVector: unknown): unknown {
    const out: Record<string, unknown> = { id: p.id };
    out.payload = selectPayload(p.payload, withPayload);
    const names = withVector === true ? null : Array.isArray(withVector) ? (withVector as string[]) : [];
    if (names === null || names.length > 0) {
      const vector: Record<string, unknown> = {};
      for (const [name, v] of p.dense) if (names === null || names.includes(name)) vector[name] = v;
      for (const [name, v] of p.sparse) if (names === null || names.includes(name)) vector[name] = v;
      out.vector = '' in c.vectors && Object.keys(c.vectors).length === 1 ? (vector[''] ?? null) : vector;
    } else {
      out.vector = null;
    }
    return out;
  }
}

/** Qdrant's RRF: each list adds 1 / ((position + 1) / weight + k - 1), position 0-based. */
export function rrfFuse(lists: { point: StoredPoint; score: number }[][], k: number, weights?: number[]) {
  if (weights && weights.length !== lists.length) {
    throw new HttpError(
      400,
      `Bad request: Number of weights in RRF should match number of pre-fetches: got ${weights.length}, expected ${lists.length}`,
    );
  }
  const fused = new Map<string, { point: StoredPoint; score: number }>();
  lists.forEach((list, l) => {
    const w = weights?.[l] ?? 1;
    list.forEach(({ point }, pos) => {
      const s = w <= 0 ? 0 : 1 / ((pos + 1) / w + k - 1);
      const e = fused.get(point.key);
      if (e) e.score += s;
      else fused.set(point.key, { point, score: s });
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score || compareIds(a.point, b.point));
}

function selectPayload(payload: Record<string, Json>, withPayload: unknown): Record<string, Json> | null {
  if (withPayload === false || withPayload == null) return null;
  if (withPayload === true) return structuredClone(payload);
  const include = Array.isArray(withPayload)
    ? (withPayload as string[])
    : ((withPayload as { include?: string[] }).include ?? null);
  const exclude = !Array.isArray(withPayload) ? ((withPayload as { exclude?: string[] }).exclude ?? []) : [];
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(payload)) {
    if (include && !include.includes(k)) continue;
    if (exclude.includes(k)) continue;
    out[k] = structuredClone(v);
  }
  if (include?.some((k) => k.includes('.'))) throw new UnsupportedByFake('nested payload selectors');
  return out;
}

/** Qdrant's point id order: integers first (numerically), then UUIDs (as 128-bit numbers = hex order). */
function compareIds(a: { id: PointId }, b: { id: PointId }): number {
  if (typeof a.id === 'number' && typeof b.id === 'number') return a.id - b.id;
  if (typeof a.id === 'number') return -1;
  if (typeof b.id === 'number') return 1;
  const x = a.id.toLowerCase();
  const y = b.id.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

function pointKey(id: PointId): string {
  return typeof id === 'number' ? `n:${id}` : `u:${id.toLowerCase()}`;
}

function normalize(v: number[]): number[] {
  const n = Math.hypot(...v);
  return n === 0 ? [...v] : v.map((x) => x / n);
}

function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
