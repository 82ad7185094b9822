import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashingEmbedder, words } from '@agentmem/core';

/**
 * A local HTTP server speaking Cohere's v2 API shapes (POST /v2/embed,
 * POST /v2/rerank; bearer auth; snake_case JSON), so the real `cohere-ai`
 * client can be tested without the network. It validates requests the way
 * the service documents them and can script faults.
 */

export interface ScriptedFault {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Respond only after this long (timeouts). */
  delayMs?: number;
}

export interface RecordedRequest {
  path: string;
  body: Record<string, unknown>;
}

const INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering', 'image'];
const MODEL_DIMENSIONS: Record<string, number> = { 'embed-v4.0': 1536, 'embed-english-v3.0': 1024, 'embed-english-light-v3.0': 384 };

function defaultRerankScore(query: string, document: string): number {
  const q = new Set(words(query));
  const d = new Set(words(document));
  let shared = 0;
  for (const w of q) if (d.has(w)) shared++;
  return q.size === 0 ? 0 : shared / q.size;
}

export class FakeCohereServer {
  readonly requests: RecordedRequest[] = [];
  apiKey = 'test-key';
  /** Relevance the rerank endpoint assigns; default: share of query words found in the document. */
  rerankScore: (query: string, document: string) => number = defaultRerankScore;
  private readonly faults: (ScriptedFault | 'pass')[] = [];
  private server: Server | undefined;
  url = '';

  /** The next requests get these responses instead, one each, in order (`'pass'`: served normally). */
  failNext(...faults: (ScriptedFault | 'pass')[]): void {
    this.faults.push(...faults);
  }

  /** Forgets recorded requests, pending faults and a custom rerank rule. */
  reset(): void {
    this.requests.length = 0;
    this.faults.length = 0;
    this.rerankScore = defaultRerankScore;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return send(400, { message: 'invalid JSON body' });
    }
    const path = (req.url ?? '').split('?')[0]!;
    this.requests.push({ path, body });
    const fault = this.faults.shift();
    if (fault && fault !== 'pass') {
      if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (res.destroyed) return;
      return send(fault.status, fault.body ?? { message: `scripted ${fault.status}` }, fault.headers);
    }
    if (req.method !== 'POST') return send(405, { message: 'method not allowed' });
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return send(401, { message: 'invalid api token' });
    if (path === '/v2/embed') return this.embed(body, send);
    if (path === '/v2/rerank') return this.rerank(body, send);
    return send(404, { message: `no route for ${path}` });
  }

  private embed(body: Record<string, unknown>, send: (s: number, b: unknown) => void) {
    const { model, texts, input_type: inputType, embedding_types: types, output_dimension: outputDimension } = body;
    if (typeof model !== 'string' || !(model in MODEL_DIMENSIONS)) return send(400, { message: `model '${String(model)}' not found` });
    if (!INPUT_TYPES.includes(inputType as string)) return send(400, { message: 'input_type is required for embed-v3 and newer models' });
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) return send(400, { message: 'texts must be an array of strings' });
    if (texts.length > 96) return send(400, { message: `invalid request: total number of texts must be at most 96 - received ${texts.length}` });
    if (types !== undefined && (!Array.isArray(types) || !types.includes('float'))) {
      return send(400, { message: 'this fake only serves float embeddings' });
    }
    const dimension = (outputDimension as number | undefined) ?? MODEL_DIMENSIONS[model]!;
    if (outputDimension !== undefined && (model !== 'embed-v4.0' || ![256, 512, 1024, 1536].includes(dimension))) {
      return send(400, { message: 'output_dimension must be one of 256, 512, 1024, 1536 and needs embed-v4.0' });
    }
    const hashing = new HashingEmbedder({ dimension });
    send(200, {
      id: `embed-${this.requests.length}`,
      response_type: 'embeddings_by_type',
      embeddings: { float: texts.map((t) => Array.from(hashing.embedOne(t))) },
      texts,
      meta: {
        api_version: { version: '2' },
        billed_units: { input_tokens: texts.reduce((n: number, t) => n + (t as string).split(/\s+/).length, 0) },
      },
    });
  }

  private rerank(body: Record<string, unknown>, send: (s: number, b: unknown) => void) {
    const { model, query, documents, top_n: topN } = body;
    if (typeof model !== 'string' || !model.startsWith('rerank')) return send(400, { message: `model '${String(model)}' not found` });
    if (typeof query !== 'string' || query === '') return send(400, { message: 'query is required' });
    if (!Array.isArray(documents) || documents.length === 0) return send(400, { message: 'documents must be a non-empty array' });
    const texts = documents.map((d) => (typeof d === 'string' ? d : (d as { text?: string }).text ?? ''));
    const results = texts
      .map((text, index) => ({ index, relevance_score: this.rerankScore(query, text) }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, typeof topN === 'number' ? topN : texts.length);
    send(200, { id: `rerank-${this.requests.length}`, results, meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } } });
  }
}
