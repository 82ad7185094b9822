// MemoryStore is one class past ~700 lines on purpose: it is the object every public method and every
// engine (decay, merge, skills, sessions) goes through, and its methods share private state (the init
// promise, the reinforcement buffer shared with scoped views, the clock, the write limits). What can
// stand alone already does, in its own folder: recall evidence, entities, temporal, importance, codec,
// limits and validation. What is left here is the order in which they are called.
import type {
  AttributeRecord,
  BackendRecord,
  Embedder,
  EntitySignal,
  HistoryAction,
  HistoryEntry,
  JsonObject,
  LoggedPatches,
  Memory,
  MemoryBackend,
  MemoryInput,
  MemoryType,
  OptimizeOptions,
  OptimizeReport,
  RecordFilter,
  Reranker,
  SearchHit,
  SignalMatch,
  Usage,
} from '../contracts';
import { fusedRelevance, fuseKeywordFirst, fuseRrf, RRF_K } from '../backends/rrf';
import type { ConversationTurn, RememberConversationOptions } from '../conversation';
import { activeFirstOnTies } from './active-first';
import { ByContent } from './by-content';
import { conversationInputs } from './conversation-inputs';
import {
  batchKeys,
  createdRecords,
  filledArray,
  hashesByNamespace,
  plannedMemories,
  setEntities,
} from './remember-batch';
import { applyKeywordEvidence, timeAnswerIn, timeSpansInQuery } from '../temporal';
import {
  applyEntityEvidence,
  type EntityNeighbour,
  type EntityRef,
  type EntityScope,
  type EntitySummary,
  entityMemories,
  entityNeighbours,
  type EntitySource,
  batchEntities,
  listEntities,
} from '../entities';
import { matchesFilter } from '../backends/match-filter';
import { effectiveImportance, type HalfLifeConfig, halfLifeFor } from '../importance';
import { cosineSimilarity, HashingEmbedder } from '../embedding';
import { checkFusionWeights } from '../embedding/fusion-weights';
import { AgentMemoryError, invalidInput } from '../errors';
import { assertBranchName, assertMemoryType, HISTORY_NAMESPACE, MEMORY_TYPES, recallNamespaces } from '../scope';
import { applyReplyEvidence, applySpeakerFocus, LIST_FOCUS_WEIGHT, replyWeightFor } from '../recall-evidence';
import { contentHash } from '../text';
import { newId, toMillis } from '../util';
import {
  createEntryId,
  historyToRecord,
  impliedCreate,
  isHistoryPending,
  KIND,
  memoryToRecord,
  recordToHistory,
  recordToMemory,
  withCreateFolded,
} from './codec';
import { type PendingAccess, ReinforcementBuffer, type ReinforcementOptions } from './reinforcement-buffer';
import { resolveWriteLimits, type WriteLimits } from './limits';
import {
  validateAgentId,
  validateContent,
  validateContext,
  validateQuery,
  validateId,
  validateImportance,
  validateInput,
  validateMetadata,
  validateOccurredAt,
  validateTags,
  validateTenant,
} from './validate';

export const META_EMBEDDER_ID = 'embedder.id';
export const META_EMBEDDER_DIMENSION = 'embedder.dimension';

export interface MemoryStoreOptions {
  backend: MemoryBackend;
  /** Default: the offline `HashingEmbedder` (384 dimensions). */
  embedder?: Embedder;
  /** Tenant scope (e.g. a user id). Default `''`: one shared tenant. */
  tenant?: string;
  /** Branch for `project` and `reference` memories. Default `main`. */
  branch?: string;
  /** Written as provenance on every memory and history entry. */
  agentId?: string;
  /** Half-life of importance in hours, one number or per type. Default 168. */
  halfLifeHours?: HalfLifeConfig;
  /**
   * Reciprocal-rank-fusion weights of the dense and keyword lists. Default
   * `{ dense: 1, keyword: 1 }`. With a lexical embedder (the default
   * `HashingEmbedder`) and no weights given, recall fuses keyword-first
   * instead: its dense list is a noisier copy of BM25 (no idf), so the keyword
   * hits keep their order (dense similarity breaks exact ties) and dense-only
   * hits fill the ranks after them; hybrid never ranks below keyword alone
   * (any dense weight that reorders keyword hits cost R@10 on LoCoMo,
   * docs/benchmarks.md). Giving weights turns on weighted RRF for any embedder.
   */
  fusionWeights?: { dense: number; keyword: number };
  /** Dense hits below this cosine similarity do not count as matches. Default 0.1 (lexical) or 0. */
  minDenseSimilarity?: number;
  /** Optional second stage that reorders the recall candidate pool. */
  reranker?: Reranker;
  /** Candidate pool handed to the reranker, as a multiple of k. Default 4. */
  rerankPoolFactor?: number;
  /**
   * Date evidence in recall queries: memories whose `occurredAt` falls on a date the query names
   * ("in May 2023", "on 8 May, 2023", "last week") get their keyword relevance raised by half.
   * Default true; `false` turns it off (one regex pass per query when on; docs/core.md).
   */
  dateEvidence?: boolean;
  /**
   * Session evidence: a session (memories sharing `metadata.sessionId`, as `rememberConversation`
   * writes them) whose turns match lifts its other matching turns. Default true.
   */
  sessionEvidence?: boolean;
  /** Turn priors: longer contents rank a little higher, contents that are questions lower. Default true. */
  turnPriors?: boolean;
  /**
   * Find the entities (people, places, titles, names, dates) a memory mentions when it is written,
   * and link memories through them (docs/entities.md). Default true; `false` stores only the
   * entities given with `MemoryInput.entities`.
   */
  entities?: boolean;
  /**
   * Entity evidence in recall: memories linked to an entity the query names, and a second hop through
   * the entities of the best candidates (docs/entities.md). Default true, on backends whose
   * capabilities say `links`.
   */
  entityEvidence?: boolean;
  /**
   * Speaker focus in recall: a query that names some of the speakers of the candidate turns
   * (`metadata.speaker`, as `rememberConversation` writes it) lifts those speakers' own turns a
   * little (docs/entities.md). Default true; memories without a speaker are not affected.
   */
  speakerFocus?: boolean;
  /**
   * Reply evidence in recall: the turn that follows a candidate turn ending in a question scores at
   * least as high as the question (docs/entities.md). Default true; needs `metadata.sessionId` and
   * `metadata.turn`, as `rememberConversation` writes them.
   */
  replyEvidence?: boolean;
  /**
   * Speaker focus for a question that asks for a list ("What books has John read?", "How many
   * tournaments has Nate won?"): the share of the best score the named speaker's turns gain, in
   * place of the 0.03 of other questions. Default `LIST_FOCUS_WEIGHT` (0.15; docs/entities.md);
   * 0.03 treats list questions like any other.
   */
  listFocus?: number;
  /** Longest content (and context), in characters. Default 32,000. */
  maxContentLength?: number;
  /** Bounds of metadata and tags (docs/core.md, "Limits"); raise one where your data needs more. */
  limits?: Partial<Omit<WriteLimits, 'maxContentLength'>>;
  /**
   * When recall's reinforcement (lastAccessedAt, accessCount) is written: in
   * batches, behind the reads (docs/core.md, "Reinforcement").
   */
  reinforcement?: ReinforcementOptions;
  /** Clock, for tests and replays. */
  now?: () => number;
}

export interface RecallOptions {
  types?: readonly MemoryType[];
  /** How many results; default 5. */
  k?: number;
  /** Drop results whose final score is below this (0..~1.2). */
  minScore?: number;
  includeSuperseded?: boolean;
  includePruned?: boolean;
  /** Search these namespaces instead of the ones the current branch sees. */
  namespaces?: readonly string[];
  /** Default `hybrid`. */
  mode?: 'hybrid' | 'dense' | 'keyword';
  /** Update lastAccessedAt/accessCount of the results; default true. */
  reinforce?: boolean;
  /** Override the store's reranker for this call (`false`: none). */
  reranker?: Reranker | false;
  /** Only memories whose `occurredAt` is at or after this time (ISO 8601 or a Date). */
  after?: string | Date;
  /** Only memories whose `occurredAt` is before this time (exclusive). */
  before?: string | Date;
  /** Override the store's `dateEvidence` for this call. */
  dateEvidence?: boolean;
  /** Override the store's `sessionEvidence` for this call. */
  sessionEvidence?: boolean;
  /** Override the store's `turnPriors` for this call. */
  turnPriors?: boolean;
  /** Override the store's `entityEvidence` for this call. */
  entityEvidence?: boolean;
  /** Override the store's `speakerFocus` for this call. */
  speakerFocus?: boolean;
  /** Override the store's `replyEvidence` for this call. */
  replyEvidence?: boolean;
  /** Override the store's `listFocus` for this call. */
  listFocus?: number;
}

export interface RecallResult {
  memory: Memory;
  /** Final ranking score: relevance weighted by decayed importance (see docs/concepts.md). */
  score: number;
  /** Fused relevance on an absolute 0..1 scale (1: first in every list). */
  relevance: number;
  /** Which signals matched and where: dense cosine, keyword BM25, entities (docs/entities.md). */
  signals: { dense?: SignalMatch; keyword?: SignalMatch; entity?: EntitySignal };
  /** Reranker's score when a rerank stage ran. */
  rerankScore?: number;
}

export interface SimilarMemory {
  memory: Memory;
  similarity: number;
}

export interface MemoryUpdate {
  content?: string;
  importance?: number;
  tags?: string[];
  metadata?: Memory['metadata'];
  /** A corrected event time (ISO 8601 or a Date). */
  occurredAt?: string | Date;
  /** New context text; `''` or `null` removes it. */
  context?: string | null;
}

const PAGE = 1000;
/** Attribute pages are small (no text or payload): fewer round trips for a pass over the whole store. */
const ATTRIBUTE_PAGE = 10_000;
/** Ids or hashes per lookup query (well under SQLite's bound-parameter limit). */
const LOOKUP_CHUNK = 500;
/**
 * A write that reports progress upserts parts of at least this many memories (with their history), and
 * at most WRITE_PARTS parts: each upsert is a savepoint of its own on SQLite, so their number is bounded.
 */
const WRITE_PART = 1000;
const WRITE_PARTS = 20;

/**
 * Long-term memory over any backend: remember, recall (hybrid), update,
 * forget, history. Scope (tenant, branch) is fixed per instance; use
 * `withScope` for another view of the same backend.
 */
export class MemoryStore {
  readonly backend: MemoryBackend;
  readonly embedder: Embedder;
  readonly tenant: string;
  readonly agentId: string | undefined;
  /** What one memory may carry: the write policy's bounds (docs/core.md, "Limits"). */
  readonly writeLimits: Readonly<WriteLimits>;
  protected branchName: string;
  protected readonly options: MemoryStoreOptions;
  protected readonly clock: () => number;
  /** Cumulative embedding cost of this instance. */
  readonly usage: Required<Pick<Usage, 'calls'>> & { tokens: number } = { calls: 0, tokens: 0 };
  private ready: Promise<void> | undefined;
  /** Accesses recall made that are not written yet; shared by every view of this store. */
  private reinforcement: ReinforcementBuffer;

  constructor(options: MemoryStoreOptions) {
    if (!options?.backend) throw invalidInput('MemoryStore needs a backend, e.g. new InMemoryBackend().');
    this.options = options;
    this.backend = options.backend;
    this.embedder = options.embedder ?? new HashingEmbedder();
    checkFusionWeights(options.fusionWeights, 'MemoryStore fusionWeights');
    checkFusionWeights(this.embedder.fusionWeights, `The embedder ${this.embedder.id}'s fusionWeights`);
    this.tenant = validateTenant(options.tenant ?? '');
    this.branchName = assertBranchName(options.branch ?? 'main');
    this.agentId = options.agentId === undefined ? undefined : validateAgentId(options.agentId);
    this.writeLimits = resolveWriteLimits(options.maxContentLength, options.limits);
    this.clock = options.now ?? Date.now;
    this.reinforcement = new ReinforcementBuffer((entries) => this.writeAccesses(entries), options.reinforcement);
  }

  /** Opens the backend and checks that it was built with this embedder. */
  static async open<T extends MemoryStore>(this: new (o: MemoryStoreOptions) => T, options: MemoryStoreOptions) {
    const store = new this(options);
    await store.init();
    return store;
  }

  get branch(): string {
    return this.branchName;
  }

  /**
   * The same store seen from another tenant, branch or agent (per-call scope
   * in adapters). Shares the backend and embedder; closing either closes both.
   */
  withScope(scope: { tenant?: string; branch?: string; agentId?: string } | undefined): this {
    const defined = Object.fromEntries(Object.entries(scope ?? {}).filter(([, v]) => v !== undefined));
    if (Object.keys(defined).length === 0) return this; // nothing to change: the store itself
    const Ctor = this.constructor as new (options: MemoryStoreOptions) => this;
    const view = new Ctor({ ...this.options, branch: this.branchName, ...defined });
    view.ready = this.ready;
    // One cost counter and one reinforcement buffer for the store and all its views.
    (view as { usage: MemoryStore['usage'] }).usage = this.usage;
    view.reinforcement = this.reinforcement;
    return view;
  }

  /** Idempotent; every public method awaits it. */
  init(): Promise<void> {
    this.ready ??= this.doInit();
    return this.ready;
  }

  private async doInit(): Promise<void> {
    const { id, dimension } = this.embedder;
    const storedId = await this.backend.getMeta(META_EMBEDDER_ID);
    const storedDim = await this.backend.getMeta(META_EMBEDDER_DIMENSION);
    // No stored dimension beside a stored id: another process is between its two writes below (or a
    // store from before they were ordered died there). The id alone decides; the dimension is written next.
    const dimensionDiffers = storedDim !== undefined && Number(storedDim) !== dimension;
    if (storedId !== undefined && (storedId !== id || dimensionDiffers)) {
      this.ready = undefined;
      throw new AgentMemoryError(
        'EMBEDDER_MISMATCH',
        `This store was built with embedder "${storedId}" (${storedDim} dimensions), not "${id}" (${dimension}). ` +
          `Open it with the same embedder, or move its contents to a new store with re-embedding: ` +
          `snapshot it, create a store with the new embedder and merge the snapshot with { reembed: true }.`,
        { details: { stored: { id: storedId, dimension: Number(storedDim) }, requested: { id, dimension } } },
      );
    }
    await this.backend.init({ dimension });
    // The dimension first: a process that reads the id (the check above) then finds the dimension too.
    if (storedDim === undefined) await this.backend.setMeta(META_EMBEDDER_DIMENSION, String(dimension));
    if (storedId === undefined) await this.backend.setMeta(META_EMBEDDER_ID, id);
  }

  // ---------------------------------------------------------------- writing

  /** Stores a memory; the same content in the same namespace returns the existing one. */
  async remember(input: MemoryInput): Promise<Memory> {
    const [memory] = await this.rememberMany([input]);
    return memory!;
  }

  /**
   * Stores a conversation (one session): one memory per turn, `speaker: text`, with the turn's
   * time as `occurredAt` and the session date and neighbouring turns as context (docs/core.md).
   * Returns one memory per turn, in order; identical turns in a namespace are one memory.
   */
  async rememberConversation(
    turns: readonly ConversationTurn[],
    options: RememberConversationOptions = {},
  ): Promise<Memory[]> {
    return this.rememberMany(conversationInputs(turns, options));
  }

  /** Stores many memories with one embedding call per batch. Duplicates (also within the batch) collapse. */
  async rememberMany(inputs: readonly MemoryInput[]): Promise<Memory[]> {
    await this.init();
    if (!Array.isArray(inputs)) throw invalidInput('rememberMany() takes an array of { content, type }.');
    const valid = inputs.map((input) => validateInput(input, this.writeLimits)); // all validated before anything is written
    const at = new Date(this.clock()).toISOString();
    const results = filledArray<Memory>(valid.length);
    // The loops over the batch are functions of their own (./remember-batch: why).
    const scope = { tenant: this.tenant, agentId: this.agentId, branchName: this.branchName };
    const keys = batchKeys(valid, scope);
    // One lookup per namespace and one id check for the whole batch, not one round trip per memory.
    const mark = await this.backend.writeMark?.();
    const existing = await this.findByHashes(keys.namespaces, keys.hashes);
    const takenIds = await this.existingIds(keys.ids);
    const seen = new ByContent<Memory>();
    const { fresh, created } = plannedMemories(valid, keys, existing, takenIds, seen, scope, at, results);
    if (created.length > 0) {
      await this.linkEntities(
        created,
        fresh.map((i) => valid[i]!.entities),
      );
      const vectors = await this.embedDocuments(created.map((m) => m.content));
      await this.transaction(async () => {
        // Another process may have written the same content since the lookup above; inside the
        // transaction (the write lock on SQLite) the lookup is certain, so it is returned, not created twice.
        // Unless the backend's write mark says nothing was written since: the lookup then still holds.
        const unchanged = mark !== undefined && (await this.backend.writeMark?.()) === mark;
        const now = unchanged ? undefined : await this.findByHashes(keys.namespaces, keys.hashes, fresh);
        const records = createdRecords(fresh, created, vectors, keys, now, results, at);
        if (records.length > 0) await this.backend.upsert(records);
      });
    }
    return results;
  }

  /** Changes content, importance, tags or metadata; content changes are re-embedded. */
  async update(id: string, patch: MemoryUpdate): Promise<Memory> {
    await this.init();
    const current = await this.mustGet(id);
    if (patch === null || typeof patch !== 'object') throw invalidInput('update() takes an object of changes.');
    const max = this.writeLimits.maxContentLength;
    const next: Memory = { ...current, updatedAt: new Date(this.clock()).toISOString() };
    if (patch.content !== undefined) {
      next.content = validateContent(patch.content, max);
      next.contentHash = contentHash(next.content);
    }
    if (patch.importance !== undefined) next.importance = validateImportance(patch.importance);
    if (patch.tags !== undefined) next.tags = validateTags(patch.tags, this.writeLimits);
    if (patch.metadata !== undefined) next.metadata = validateMetadata(patch.metadata, this.writeLimits);
    if (patch.occurredAt !== undefined) next.occurredAt = validateOccurredAt(patch.occurredAt);
    if (patch.context !== undefined) {
      const context = patch.context === null ? undefined : validateContext(patch.context, max);
      if (context === undefined) delete next.context;
      else next.context = context;
    }
    // What the content mentions, and the dates its relative times resolve to, follow content and event time.
    if (next.contentHash !== current.contentHash || next.occurredAt !== current.occurredAt) {
      const given = current.entities
        ?.filter((e) => e.source === 'model')
        .map((e) => ({ name: e.text ?? e.name, kind: e.kind }));
      await this.linkEntities([next], [given]);
    }
    const relinked = JSON.stringify(next.entities ?? []) !== JSON.stringify(current.entities ?? []);
    if (next.contentHash !== current.contentHash) {
      const [vector] = await this.embedDocuments([next.content]);
      await this.writeMemories([{ memory: next, vector: vector! }], 'update');
    } else if (next.context !== current.context || relinked) {
      // The keyword index holds the context: rewrite the record, keeping its vector (content is unchanged).
      const [stored] = await this.backend.get([id], { tenant: this.tenant, withVectors: true });
      const vector = stored?.vector ?? (await this.embedDocuments([next.content]))[0]!;
      await this.writeMemories([{ memory: next, vector }], 'update');
    } else {
      await this.patchMemories([next], 'update');
    }
    return next;
  }

  /** Deletes a memory for good; its history remains. Returns false when there was none. */
  async forget(id: string): Promise<boolean> {
    await this.init();
    validateId(id);
    const current = await this.get(id);
    if (!current) return false;
    await this.transaction(async () => {
      await this.foldCreatesOf([id]);
      await this.backend.delete([id]);
      await this.recordHistory([{ memory: current, action: 'forget' }]);
    });
    return true;
  }

  // ---------------------------------------------------------------- reading

  async get(id: string): Promise<Memory | undefined> {
    await this.init();
    validateId(id);
    const [record] = await this.backend.get([id], { tenant: this.tenant, withVectors: false });
    if (!record || record.attributes.kind !== KIND.memory) return undefined;
    return this.reinforcement.overlay(recordToMemory(record));
  }

  /** Hybrid recall over what the current branch and tenant see. */
  async recall(query: string, options: RecallOptions = {}): Promise<RecallResult[]> {
    await this.init();
    validateQuery(query);
    const k = options.k ?? 5;
    if (!Number.isInteger(k) || k < 1) throw invalidInput(`k must be a positive integer, got ${k}.`);
    const types = (options.types ?? MEMORY_TYPES).map(assertMemoryType);
    // Explicit namespaces can hold several types: then the type filter goes into the query too.
    const filter = this.memoryFilter(options.namespaces ?? recallNamespaces(this.branchName, types), {
      ...options,
      ...(options.namespaces && options.types ? { types } : {}),
    });
    const mode = options.mode ?? 'hybrid';
    const reranker = options.reranker === false ? undefined : (options.reranker ?? this.options.reranker);
    const want = reranker ? k * (this.options.rerankPoolFactor ?? 4) : k;
    const pool = Math.max(want * 5, 50);
    const now = this.clock();
    const evidence = {
      spans: (options.dateEvidence ?? this.options.dateEvidence ?? true) ? timeSpansInQuery(query, now) : [],
      sessions: options.sessionEvidence ?? this.options.sessionEvidence ?? true,
      turnPriors: options.turnPriors ?? this.options.turnPriors ?? true,
    };
    const entities = (options.entityEvidence ?? this.options.entityEvidence ?? true) && this.backend.capabilities.links;
    const dates = options.dateEvidence ?? this.options.dateEvidence ?? true;
    const timeAnswer = timeAnswerIn(query);
    const keywordEvidence = { ...evidence, timeAnswer: dates ? timeAnswer : undefined };
    const speakerFocus = options.speakerFocus ?? this.options.speakerFocus ?? true;
    const replyEvidence = options.replyEvidence ?? this.options.replyEvidence ?? true;
    const listFocus = options.listFocus ?? this.options.listFocus;
    if (listFocus !== undefined && !(Number.isFinite(listFocus) && listFocus >= 0))
      throw invalidInput(`listFocus must be a number >= 0 (default ${LIST_FOCUS_WEIGHT}), got ${listFocus}.`);
    const asksTime = timeAnswer !== undefined;
    const rescore = async (hits: SearchHit[]) => {
      let rescored = applyKeywordEvidence(hits, keywordEvidence);
      // Conversation evidence before the entity hop, so the hop follows the candidates it put first.
      if (replyEvidence) rescored = applyReplyEvidence(rescored, replyWeightFor(query, asksTime));
      if (speakerFocus) rescored = applySpeakerFocus(rescored, query, { listWeight: listFocus, asksTime });
      return entities ? applyEntityEvidence(rescored, { backend: this.backend, query, filter, pool }) : rescored;
    };
    // A backend that can (`partialHits`) gives the dense list as ids, scope and the attributes ranking
    // reads; whole records are read after fusion for the k returned only (not with a reranker: it reads text).
    const partial = this.backend.capabilities.partialHits && !reranker ? new WeakSet<BackendRecord>() : undefined;
    let hits = await this.searchHits(query, { mode, filter, k: pool, rescoreKeyword: rescore, partial });
    const weights = this.fusionWeights();
    const totalWeight = mode === 'hybrid' ? weights.dense + weights.keyword : 1;
    // A fused hit's score with its memory's importance factor (from the memory, or its attributes' copies).
    const scoreOf = (hit: SearchHit, importance: number, lastAccessed: number, type: MemoryType) => {
      const relevance = fusedRelevance(hit.score, totalWeight);
      const eff = effectiveImportance(importance, lastAccessed, now, halfLifeFor(type, this.options.halfLifeHours));
      return { relevance, score: relevance * (0.98 + 0.04 * eff) };
    };
    const resultOf = (hit: SearchHit, memory: Memory): RecallResult => {
      const { relevance, score } = scoreOf(hit, memory.importance, toMillis(memory.lastAccessedAt), memory.type);
      const result: RecallResult = { memory, relevance, score, signals: {} };
      if (hit.dense) result.signals.dense = hit.dense;
      if (hit.keyword) result.signals.keyword = hit.keyword;
      if (hit.entity) result.signals.entity = hit.entity;
      return result;
    };
    if (partial && hits.some((h) => partial.has(h.record))) {
      const top = await this.topOfPartial(hits, partial, {
        k,
        minScore: options.minScore,
        tenant: filter.tenant,
        scoreOf,
        resultOf,
      });
      if (top.results) return this.recalled(top.results, options);
      hits = top.whole;
    }
    let results: RecallResult[] = hits.map((hit) =>
      resultOf(hit, this.reinforcement.overlay(recordToMemory(hit.record))),
    );
    results.sort((a, b) => b.score - a.score);
    if (reranker && results.length > 0) {
      results = results.slice(0, want);
      const ranked = await reranker.rerank(
        query,
        results.map((r) => ({ id: r.memory.id, text: r.memory.content })),
        { topN: k },
      );
      results = ranked.ranking
        .filter((r) => results[r.index] !== undefined)
        .map((r) => ({ ...results[r.index]!, rerankScore: r.score }));
    }
    if (options.minScore !== undefined) results = results.filter((r) => r.score >= options.minScore!);
    return this.recalled(results.slice(0, k), options);
  }

  /** Recall's results, their accesses buffered. */
  private recalled(results: RecallResult[], options: RecallOptions): RecallResult[] {
    // Reads stay reads: the accesses are written later, in batches (a read-only file skips them).
    if (options.reinforce !== false && results.length > 0 && !this.backend.capabilities.readonly) {
      this.reinforcement.add(
        results.map((r) => r.memory),
        this.clock(),
      );
    }
    return results;
  }

  /**
   * Recall's k best of fused hits some of which are partial (id, scope and `RANK_ATTRIBUTES`): ranked
   * by the attributes a memory's own fields are copied to (`memoryAttributes`), in recall's order, then
   * only the partial hits among the k read whole. When that cannot give recall's own results (an
   * attribute missing, a record gone or changed since the search), `whole`: every hit read whole.
   */
  private async topOfPartial(
    hits: readonly SearchHit[],
    partial: WeakSet<BackendRecord>,
    opts: {
      k: number;
      minScore: number | undefined;
      tenant: string | null;
      scoreOf: (hit: SearchHit, importance: number, lastAccessed: number, type: MemoryType) => { score: number };
      resultOf: (hit: SearchHit, memory: Memory) => RecallResult;
    },
    /** Every whole hit's result made before ranking (as before `wholeScore`): when a made one disagrees with its score. */
    eager = false,
  ): Promise<{ results: RecallResult[]; whole?: undefined } | { results?: undefined; whole: SearchHit[] }> {
    const { tenant } = opts;
    const readWhole = async (): Promise<{ whole: SearchHit[] }> => {
      const ids = hits.filter((h) => partial.has(h.record)).map((h) => h.record.id);
      const records = new Map((await this.backend.get(ids, { tenant, withVectors: false })).map((r) => [r.id, r]));
      return {
        whole: hits.flatMap((h) => {
          if (!partial.has(h.record)) return [h];
          const record = records.get(h.record.id);
          return record ? [{ ...h, record }] : [];
        }),
      };
    };
    const ranked: { hit: SearchHit; score: number; result?: RecallResult; whole?: true }[] = [];
    for (const hit of hits) {
      if (!partial.has(hit.record)) {
        // A whole hit is ranked by its score alone: its memory and result are made only if it is among the k.
        const score = eager ? undefined : this.wholeScore(hit, opts.scoreOf);
        if (score !== undefined) {
          ranked.push({ hit, score, whole: true });
          continue;
        }
        const result = opts.resultOf(hit, this.reinforcement.overlay(recordToMemory(hit.record)));
        ranked.push({ hit, score: result.score, result });
        continue;
      }
      const { importance, lastAccessedAt, type } = hit.record.attributes;
      if (typeof importance !== 'number' || typeof lastAccessedAt !== 'number' || typeof type !== 'string')
        return readWhole();
      const last = this.reinforcement.lastAccess(hit.record.id, lastAccessedAt);
      ranked.push({ hit, score: opts.scoreOf(hit, importance, last, type as MemoryType).score });
    }
    ranked.sort((a, b) => b.score - a.score);
    const top = (opts.minScore === undefined ? ranked : ranked.filter((r) => r.score >= opts.minScore!)).slice(
      0,
      opts.k,
    );
    for (const r of top) {
      if (!r.whole) continue;
      r.result = opts.resultOf(r.hit, this.reinforcement.overlay(recordToMemory(r.hit.record)));
      if (r.result.score !== r.score) return this.topOfPartial(hits, partial, opts, true);
    }
    const wanted = top.filter((r) => !r.result).map((r) => r.hit.record.id);
    const records =
      wanted.length === 0
        ? new Map<string, BackendRecord>()
        : new Map((await this.backend.get(wanted, { tenant, withVectors: false })).map((r) => [r.id, r]));
    const results: RecallResult[] = [];
    for (const r of top) {
      if (r.result) {
        results.push(r.result);
        continue;
      }
      const record = records.get(r.hit.record.id);
      if (!record || record.attributes.kind !== KIND.memory) return readWhole();
      const result = opts.resultOf({ ...r.hit, record }, this.reinforcement.overlay(recordToMemory(record)));
      // The attributes ranked on are copies of the memory's fields: a copy that disagrees (another
      // writer's change since the search) would rank differently, so everything is ranked whole.
      if (result.score !== r.score) return readWhole();
      results.push(result);
    }
    return { results };
  }

  /**
   * The score `resultOf` gives a whole hit, from its stored memory's fields as `recordToMemory` and the
   * reinforcement overlay would give them, without making either; undefined when the payload is not
   * the plain stored memory that makes this certain (the caller then makes the result).
   */
  private wholeScore(
    hit: SearchHit,
    scoreOf: (hit: SearchHit, importance: number, lastAccessed: number, type: MemoryType) => { score: number },
  ): number | undefined {
    const p = hit.record.payload as Partial<Memory>;
    if (hit.record.attributes.kind !== KIND.memory || typeof p.content !== 'string') return undefined;
    const { importance, type, lastAccessedAt } = p;
    if (typeof importance !== 'number' || typeof type !== 'string' || typeof lastAccessedAt !== 'string')
      return undefined;
    const stored = Date.parse(lastAccessedAt);
    if (!Number.isFinite(stored)) return undefined;
    // The overlay writes a later buffered access as an ISO string, which `resultOf` parses back.
    const last = this.reinforcement.lastAccess(hit.record.id, stored);
    return scoreOf(hit, importance, last === stored ? stored : Date.parse(new Date(last).toISOString()), type).score;
  }

  /**
   * Memories most similar to a text by dense similarity alone (conflict checks, dedup). The text is
   * embedded as a document, like the stored memories: this compares memories with memories.
   */
  async findSimilar(
    content: string,
    options: {
      types?: readonly MemoryType[];
      namespaces?: readonly string[];
      k?: number;
      minSimilarity?: number;
      includeInactive?: boolean;
    } = {},
  ): Promise<SimilarMemory[]> {
    await this.init();
    validateContent(content, Number.POSITIVE_INFINITY);
    const types = (options.types ?? MEMORY_TYPES).map(assertMemoryType);
    const filter = this.memoryFilter(options.namespaces ?? recallNamespaces(this.branchName, types), {
      includeSuperseded: options.includeInactive,
      includePruned: options.includeInactive,
    });
    const [vector] = await this.embed([content], 'document');
    const hits = await this.backend.search({ mode: 'dense', vector: vector!, filter, k: options.k ?? 5 });
    return hits
      .map((h) => ({ memory: recordToMemory(h.record), similarity: h.score }))
      .filter((s) => s.similarity >= (options.minSimilarity ?? Number.NEGATIVE_INFINITY));
  }

  /** Every change to a memory, oldest first (also after it was forgotten). */
  async history(id: string): Promise<HistoryEntry[]> {
    await this.init();
    validateId(id);
    const entries: HistoryEntry[] = [];
    for await (const record of this.scanRecords({
      tenant: this.tenant,
      namespaces: [HISTORY_NAMESPACE],
      where: { memoryId: id },
    })) {
      entries.push(recordToHistory(record));
    }
    // A memory rememberMany created and nothing changed since: its create entry is the record itself.
    const [memory] = await this.backend.get([id], { tenant: this.tenant, withVectors: false });
    if (memory && isHistoryPending(memory) && !entries.some((e) => e.id === createEntryId(id))) {
      entries.push(impliedCreate(memory));
    }
    // A create entry comes first among entries of one instant (its id is derived, not time-ordered).
    return entries.sort(
      (a, b) =>
        toMillis(a.at) - toMillis(b.at) ||
        Number(b.action === 'create') - Number(a.action === 'create') ||
        (a.id < b.id ? -1 : 1),
    );
  }

  /** Every memory matching a filter, page by page, however many there are. */
  async *memories(
    options: { namespaces?: readonly string[]; includeInactive?: boolean; allTenants?: boolean } = {},
  ): AsyncGenerator<Memory> {
    await this.init();
    const where: Record<string, unknown> = { kind: KIND.memory };
    if (!options.includeInactive) where.status = 'active';
    const filter: RecordFilter = {
      tenant: options.allTenants ? null : this.tenant,
      where: where as RecordFilter['where'],
      ...(options.namespaces ? { namespaces: options.namespaces } : {}),
    };
    for await (const record of this.scanRecords(filter)) yield this.reinforcement.overlay(recordToMemory(record));
  }

  // ---------------------------------------------------------------- entities

  /**
   * The entities the memories this branch and tenant see mention (people, places, titles, names,
   * dates), page by page in key order, with how many memories link to each (docs/entities.md).
   */
  async entities(
    options: { prefix?: string; cursor?: string; limit?: number; namespaces?: readonly string[] } = {},
  ): Promise<{ entities: EntitySummary[]; cursor?: string }> {
    await this.init();
    return listEntities(this.entityScope(options), options);
  }

  /** Every memory linked to an entity ("Caroline", or `{ key }`), active ones unless asked, in id order. */
  async entityMemories(
    entity: EntityRef,
    options: { namespaces?: readonly string[]; includeInactive?: boolean } = {},
  ): Promise<Memory[]> {
    await this.init();
    return entityMemories(this.entityScope(options), entity);
  }

  /** The entities that share memories with one, most shared first (default at most 20). */
  async entityNeighbours(
    entity: EntityRef,
    options: { namespaces?: readonly string[]; includeInactive?: boolean; limit?: number } = {},
  ): Promise<EntityNeighbour[]> {
    await this.init();
    return entityNeighbours(this.entityScope(options), entity, options);
  }

  private entityScope(options: { namespaces?: readonly string[]; includeInactive?: boolean }): EntityScope {
    const filter = this.memoryFilter(options.namespaces ?? recallNamespaces(this.branchName), {
      includeSuperseded: options.includeInactive,
      includePruned: options.includeInactive,
    });
    return {
      backend: this.backend,
      filter,
      read: async (ids) =>
        (await this.backend.get(ids, { tenant: this.tenant, withVectors: false }))
          .filter((r) => matchesFilter(r, filter))
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .map((r) => this.reinforcement.overlay(recordToMemory(r))),
    };
  }

  /** How many active memories per namespace this tenant has. */
  async stats(): Promise<{ namespaces: { namespace: string; count: number }[]; total: number; inactive: number }> {
    await this.init();
    const namespaces = (await this.backend.namespaces({ tenant: this.tenant })).filter(
      (n) => !n.namespace.startsWith('_'),
    );
    const active = await Promise.all(
      namespaces.map(async (n) => ({
        namespace: n.namespace,
        count: await this.backend.count({
          tenant: this.tenant,
          namespaces: [n.namespace],
          where: { kind: KIND.memory, status: 'active' },
        }),
      })),
    );
    const total = active.reduce((s, n) => s + n.count, 0);
    // Only memories count: other record kinds (LangGraph store items, ...) share the namespace list.
    const all = await this.backend.count({
      tenant: this.tenant,
      namespaces: namespaces.map((n) => n.namespace),
      where: { kind: KIND.memory },
    });
    return { namespaces: active.filter((n) => n.count > 0), total, inactive: all - total };
  }

  /** A memory's last access (epoch ms, as stored), or a later one recall buffered and has not written yet. */
  lastAccess(id: string, storedMs: number): number {
    return this.reinforcement.lastAccess(id, storedMs);
  }

  /** Whether recall buffered an access to this memory that the backend does not have yet. */
  hasBufferedAccess(id: string): boolean {
    return this.reinforcement.has(id);
  }

  /** Writes the reinforcement recall has buffered (close() does it too). */
  async flushReinforcement(): Promise<void> {
    await this.reinforcement.flush();
  }

  /**
   * A maintenance step (`agentmem optimize`, a deploy step, a cron): the backend finishes index
   * builds left to later searches and saves its indexes, so that the next process's first recall
   * restores them without catching up (backend's `optimize`, docs/sqlite.md "Keeping a store fast").
   * Buffered reinforcement is written first. Undefined when the backend has nothing of the kind
   * (in-memory, Postgres, Qdrant).
   */
  async optimize(options: OptimizeOptions = {}): Promise<OptimizeReport | undefined> {
    if (!this.backend.optimize) return undefined;
    await this.reinforcement.flush();
    return this.backend.optimize(options);
  }

  async close(): Promise<void> {
    await this.reinforcement.close();
    await this.backend.close();
  }

  // ------------------------------------------------------ for engines (decay, merge, skills)

  /** Embeds documents (stored text) and counts the cost. */
  async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    return this.embed(texts, 'document');
  }

  protected async embed(texts: readonly string[], purpose: 'document' | 'query'): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const result = await this.embedder.embed(texts, { purpose });
    this.usage.calls += result.usage?.calls ?? 1;
    this.usage.tokens += result.usage?.tokens ?? 0;
    if (result.embeddings.length !== texts.length) {
      throw new AgentMemoryError(
        'BACKEND_ERROR',
        `Embedder ${this.embedder.id} returned ${result.embeddings.length} vectors for ${texts.length} texts.`,
      );
    }
    for (const v of result.embeddings) {
      if (v.length !== this.embedder.dimension) {
        throw new AgentMemoryError(
          'DIMENSION_MISMATCH',
          `Embedder ${this.embedder.id} declared ${this.embedder.dimension} dimensions but returned ${v.length}. Fix its dimension option.`,
        );
      }
    }
    return result.embeddings;
  }

  /**
   * Upserts memories with vectors and records one history entry each, in one transaction. With
   * `onProgress`, the transaction writes them in parts (see WRITE_PART) and reports after each, so a
   * long import shows its write phase; without it, in one upsert.
   */
  async writeMemories(
    items: readonly { memory: Memory; vector: Float32Array }[],
    action: HistoryAction,
    detail?: string,
    onProgress?: (written: number, total: number) => void,
  ): Promise<void> {
    // One upsert for the memories and their history entries (memories first, so rows and rowids are
    // as two calls wrote them): on SQLite a second call was a second id lookup and a second savepoint,
    // which copied again every page both had changed to the temporary journal.
    const history = this.historyRecords(items.map((i) => ({ memory: i.memory, action, detail })));
    const records = (from: number, to: number) => [
      ...items.slice(from, to).map((i) => memoryToRecord(i.memory, i.vector)),
      ...history.slice(from, to),
    ];
    const fold = () => this.foldCreatesOf(items.map((i) => i.memory.id));
    if (!onProgress) {
      await this.transaction(async () => {
        await fold();
        await this.backend.upsert(records(0, items.length));
      });
      return;
    }
    const part = Math.max(WRITE_PART, Math.ceil(items.length / WRITE_PARTS));
    await this.transaction(async () => {
      await fold();
      for (let i = 0; i < items.length; i += part) {
        const to = Math.min(i + part, items.length);
        await this.backend.upsert(records(i, to));
        onProgress(to, items.length);
      }
    });
  }

  /** Rewrites payload and attributes (not vectors) of memories, with history. */
  async patchMemories(memories: readonly Memory[], action: HistoryAction, detail?: string): Promise<void> {
    await this.transaction(async () => {
      const folded = await this.foldCreatesOf(memories.map((m) => m.id));
      await this.backend.patch(
        memories.map((m) => {
          const r = memoryToRecord(m, undefined);
          return { id: m.id, attributes: withCreateFolded(r.attributes, folded.has(m.id)), payload: r.payload };
        }),
      );
      await this.recordHistory(memories.map((memory) => ({ memory, action, detail })));
    });
  }

  /**
   * Writes the implied `create` entries of the marked memory records among these as history rows,
   * with each memory as the record still holds it: every path that changes or removes memories calls
   * this first, in its transaction, with the records as they are before its change. Returns the ids
   * folded; a caller that patches them sets the marker to false (an upsert of `memoryToRecord` or a
   * delete drops it anyway). The rows' ids are stable, so folding twice writes the same row.
   */
  async foldCreates(records: readonly BackendRecord[]): Promise<Set<string>> {
    const marked = records.filter(isHistoryPending);
    if (marked.length === 0) return new Set();
    await this.backend.upsert(marked.map((r) => historyToRecord(impliedCreate(r), r.tenant)));
    return new Set(marked.map((r) => r.id));
  }

  /** `foldCreates` of the records with these ids (any tenant), read first. */
  async foldCreatesOf(ids: readonly string[]): Promise<Set<string>> {
    const folded = new Set<string>();
    for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
      const records = await this.backend.get(ids.slice(i, i + LOOKUP_CHUNK), { tenant: null, withVectors: false });
      for (const id of await this.foldCreates(records)) folded.add(id);
    }
    return folded;
  }

  /** One entry per item; `id` when the caller derives it (decay and compact without transactions), else a new one. */
  async recordHistory(
    items: readonly { memory: Memory; action: HistoryAction; detail?: string; id?: string }[],
  ): Promise<void> {
    if (items.length === 0) return;
    await this.backend.upsert(this.historyRecords(items));
  }

  /** The history records of these changes, stamped with one instant of the store's clock. */
  private historyRecords(
    items: readonly { memory: Memory; action: HistoryAction; detail?: string; id?: string }[],
  ): BackendRecord[] {
    const entry = this.historyEntries();
    return items.map((item) => {
      const made = entry(item.memory.id, item.action, item.detail, item.memory);
      return historyToRecord((item.id ? { ...made, id: item.id } : made) as HistoryEntry, item.memory.tenant);
    });
  }

  /**
   * History entries of one action for `patchLogged` (decay's prune): the
   * record `recordHistory` writes as a template, whose entry id, memory id and
   * memory the backend fills in, and a new entry id per change.
   */
  historyLog(action: HistoryAction, detail?: string): { log: LoggedPatches['log']; newEntryId: () => string } {
    const nowMs = this.clock();
    const entry = this.historyEntries(nowMs);
    const template = historyToRecord(entry('', action, detail) as HistoryEntry, '');
    return {
      log: {
        namespace: template.namespace,
        attributes: template.attributes,
        payload: template.payload,
        keys: { id: 'id', ref: 'memoryId', copy: 'memory' },
      },
      newEntryId: () => newId('hist', nowMs),
    };
  }

  /** Builds history entries stamped with one instant of the store's clock (keys in recordHistory's order). */
  private historyEntries(nowMs = this.clock()) {
    const at = new Date(nowMs).toISOString();
    const agentId = this.agentId;
    return (memoryId: string, action: HistoryAction, detail: string | undefined, memory?: Memory) => {
      // Optional keys assigned in place, in the order the stored JSON has them.
      const entry: { id: string; memoryId: string; action: HistoryAction; at: string } & Partial<
        Pick<HistoryEntry, 'memory' | 'agentId' | 'detail'>
      > = { id: newId('hist', nowMs), memoryId, action, at };
      if (memory) entry.memory = memory;
      if (agentId) entry.agentId = agentId;
      if (detail) entry.detail = detail;
      return entry;
    };
  }

  /** Runs `fn` all-or-nothing when the backend supports it. */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.backend.transaction ? this.backend.transaction(fn) : fn();
  }

  /** Every record matching the filter, in pages. */
  async *scanRecords(filter: RecordFilter, withVectors = false): AsyncGenerator<BackendRecord> {
    let cursor: string | undefined;
    do {
      const page = await this.backend.scan({ filter, cursor, limit: PAGE, withVectors });
      for (const r of page.records) yield r;
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /**
   * Every matching record's id, scope and attributes, in pages: the backend's
   * `scanAttributes` when it has one (no text, payload or vector read), else
   * `scan`. Order is the backend's. `attributes`: the ones the caller needs
   * (records may carry more).
   */
  async *scanAttributes(filter: RecordFilter, attributes?: readonly string[]): AsyncGenerator<AttributeRecord> {
    let cursor: string | undefined;
    do {
      const page = await this.attributePage(filter, cursor, attributes);
      yield* page.records;
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /**
   * One page of `scanAttributes` (for callers that work page by page, such as decay's transaction per
   * page): `limit` records at most, ATTRIBUTE_PAGE by default, or PAGE when the backend has no
   * `scanAttributes` and whole records are read.
   */
  async attributePage(
    filter: RecordFilter,
    cursor: string | undefined,
    attributes?: readonly string[],
    limit?: number,
  ): Promise<{ records: AttributeRecord[]; cursor?: string }> {
    // Without scanAttributes, whole records: a record is an attribute record with more fields.
    if (!this.backend.scanAttributes) return this.backend.scan({ filter, cursor, limit: limit ?? PAGE });
    return this.backend.scanAttributes({ filter, cursor, limit: limit ?? ATTRIBUTE_PAGE, attributes });
  }

  /** The filter recall uses: this tenant, memories only, active unless asked otherwise. */
  memoryFilter(
    namespaces: readonly string[],
    options: {
      includeSuperseded?: boolean;
      includePruned?: boolean;
      types?: readonly MemoryType[];
      after?: string | Date;
      before?: string | Date;
    } = {},
  ): RecordFilter {
    const statuses = ['active'];
    if (options.includeSuperseded) statuses.push('superseded');
    if (options.includePruned) statuses.push('pruned');
    const time: { gte?: number; lt?: number } = {};
    if (options.after !== undefined) time.gte = toMillis(validateOccurredAt(options.after, 'after'));
    if (options.before !== undefined) time.lt = toMillis(validateOccurredAt(options.before, 'before'));
    return {
      tenant: this.tenant,
      namespaces,
      where: {
        kind: KIND.memory,
        status: statuses.length === 1 ? 'active' : { in: statuses },
        ...(options.types ? { type: { in: options.types } } : {}),
        ...(time.gte !== undefined || time.lt !== undefined ? { occurredAt: time } : {}),
      },
    };
  }

  /** The reciprocal-rank-fusion weights recall uses (from the options, else from the embedder). */
  fusionWeights(): { dense: number; keyword: number } {
    return (
      this.options.fusionWeights ??
      this.embedder.fusionWeights ??
      (this.embedder.lexical ? { dense: 0.03, keyword: 1 } : { dense: 1, keyword: 1 })
    );
  }

  /**
   * Hybrid (or dense / keyword) search over any records, fused the way recall
   * fuses: for engines and adapters that store their own record kinds.
   */
  async searchRecords(
    query: string,
    {
      mode,
      filter,
      k: pool,
      rescoreKeyword,
    }: {
      mode: 'hybrid' | 'dense' | 'keyword';
      filter: RecordFilter;
      k: number;
      /** Rescores and reorders the keyword hits before fusion (query-side evidence). */
      rescoreKeyword?: (hits: SearchHit[]) => SearchHit[] | Promise<SearchHit[]>;
    },
  ): Promise<SearchHit[]> {
    return this.searchHits(query, { mode, filter, k: pool, rescoreKeyword });
  }

  /** `searchRecords`, with the dense list partial (`partialHits`: see `RANK_ATTRIBUTES`) when `partial` is given, each such record added to it. */
  private async searchHits(
    query: string,
    {
      mode,
      filter,
      k: pool,
      rescoreKeyword,
      partial,
    }: {
      mode: 'hybrid' | 'dense' | 'keyword';
      filter: RecordFilter;
      k: number;
      rescoreKeyword?: (hits: SearchHit[]) => SearchHit[] | Promise<SearchHit[]>;
      partial?: WeakSet<BackendRecord>;
    },
  ): Promise<SearchHit[]> {
    const caps = this.backend.capabilities;
    const minDense = this.options.minDenseSimilarity ?? (this.embedder.lexical ? 0.1 : 0);
    const needsVector = mode !== 'keyword' || !caps.textSearch;
    const vector = needsVector ? (await this.embed([query], 'query'))[0]! : undefined;
    // Each list puts active records first among equal scores, before fusion turns the tie into ranks.
    const dense = async () => {
      const request = { mode: 'dense' as const, vector, filter, k: pool };
      const hits = (
        await this.backend.search(partial ? { ...request, partial: { attributes: RANK_ATTRIBUTES } } : request)
      ).filter((h) => h.score >= minDense);
      if (partial) for (const h of hits) partial.add(h.record);
      return activeFirstOnTies(hits);
    };
    const keyword = async () => {
      if (!caps.textSearch) return [];
      const hits = await this.backend.search({ mode: 'keyword', text: query, filter, k: pool });
      return activeFirstOnTies(rescoreKeyword ? await rescoreKeyword(hits) : hits);
    };
    const asList = (hits: SearchHit[], signal: 'dense' | 'keyword') =>
      hits.map((h, i) => ({
        record: h.record,
        score: 1 / (RRF_K + i + 1),
        [signal]: { rank: i + 1, score: h.score },
        ...(h.entity ? { entity: h.entity } : {}),
      }));
    if (mode === 'dense' || (mode === 'keyword' && !caps.textSearch)) return asList(await dense(), 'dense');
    if (mode === 'keyword') return asList(await keyword(), 'keyword');
    const weights = this.fusionWeights();
    // A lexical embedder's dense list is a noisier copy of the keyword one: it only breaks exact ties and
    // fills the ranks keyword search leaves empty, so hybrid can never rank worse than keyword alone.
    const keywordFirst = this.options.fusionWeights === undefined && this.embedder.lexical === true;
    if (caps.nativeHybrid && !keywordFirst) {
      const fused = await this.backend.search({
        mode: 'hybrid',
        vector,
        text: query,
        filter,
        k: pool,
        weights,
        minDenseScore: minDense,
      });
      return activeFirstOnTies(fused);
    }
    const kw = await keyword();
    if (keywordFirst) {
      // A full keyword pool leaves no rank to fill: score its own vectors (no vector scan at 100k).
      const d = kw.length >= pool ? await this.denseAmong(kw, vector!, filter, minDense) : await dense();
      return fuseKeywordFirst(d, kw, weights, pool);
    }
    // With weights (the caller's) where even the best dense-only hit ranks below the last keyword hit,
    // a full dense scan cannot change which records make the pool: score the keyword hits' own vectors
    // instead (at 100k memories that saves the whole vector scan).
    const denseCannotEnter = kw.length >= pool && weights.dense / (RRF_K + 1) < weights.keyword / (RRF_K + pool);
    const d = denseCannotEnter ? await this.denseAmong(kw, vector!, filter, minDense) : await dense();
    if (partial) {
      // Fusion keeps the dense hit's record: the keyword list's whole one spares reading it again.
      const whole = new Map(kw.map((h) => [h.record.id, h.record]));
      for (const h of d) h.record = whole.get(h.record.id) ?? h.record;
    }
    return fuseRrf(d, kw, weights, pool);
  }

  /** Dense similarity of the given hits' stored vectors to the query, best first. */
  private async denseAmong(
    hits: readonly SearchHit[],
    vector: Float32Array,
    filter: RecordFilter,
    minDense: number,
  ): Promise<SearchHit[]> {
    const ids = hits.map((h) => h.record.id);
    // The vectors alone where the backend can read them so (the hits hold the records): at 100k memories
    // reading the 50 records whole again was ~15% of a warm recall (docs/benchmarks.md, recall-10).
    const vectors: Map<string, Float32Array | undefined> = this.backend.vectors
      ? await this.backend.vectors(ids, { tenant: filter.tenant })
      : new Map(
          (await this.backend.get(ids, { tenant: filter.tenant, withVectors: true })).map((r) => [r.id, r.vector]),
        );
    const scored: SearchHit[] = [];
    for (const hit of hits) {
      const v = vectors.get(hit.record.id);
      if (v) scored.push({ record: hit.record, score: cosineSimilarity(vector, v) });
    }
    return activeFirstOnTies(
      scored
        .filter((h) => h.score >= minDense)
        .sort((a, b) => b.score - a.score || (a.record.id < b.record.id ? -1 : 1)),
    );
  }

  /** Writes buffered accesses: one batch, only the access fields, onto what is stored now. */
  private async writeAccesses(entries: readonly PendingAccess[]): Promise<void> {
    // Re-read and change only the access fields: an update or supersede written since the recall
    // (another process, or while a reranker ran) must not be overwritten by the copy recall read.
    // Under a transaction where other processes can write; the in-memory one would copy the store.
    const write = async () => {
      const byId = new Map(entries.map((e) => [e.id, e]));
      const current = (await this.backend.get([...byId.keys()], { tenant: null, withVectors: false })).filter(
        (r) => r.attributes.kind === KIND.memory && byId.get(r.id)!.tenant === r.tenant,
      );
      const folded = await this.foldCreates(current);
      await this.backend.patch(
        current.map((r) => {
          const m = recordToMemory(r);
          const entry = byId.get(r.id)!;
          const at = Math.max(entry.at, toMillis(m.lastAccessedAt));
          const payload = {
            ...m,
            lastAccessedAt: new Date(at).toISOString(),
            accessCount: m.accessCount + entry.count,
          };
          const attributes = withCreateFolded({ lastAccessedAt: at }, folded.has(m.id));
          return { id: m.id, attributes, payload: payload as unknown as JsonObject };
        }),
      );
    };
    await (this.backend.capabilities.persistent ? this.transaction(write) : write());
  }

  /**
   * Existing memories by namespace and content hash (the first found per key), looked up per namespace
   * in chunks: of the inputs at `among` (their positions in `namespaces` and `hashes`), or of all.
   */
  private async findByHashes(
    namespaces: readonly string[],
    hashes: readonly string[],
    among?: readonly number[],
  ): Promise<ByContent<Memory>> {
    const byNamespace = hashesByNamespace(namespaces, hashes, among);
    const found = new ByContent<Memory>();
    for (const [namespace, set] of byNamespace) {
      const all = [...set];
      for (let i = 0; i < all.length; i += LOOKUP_CHUNK) {
        const filter: RecordFilter = {
          tenant: this.tenant,
          namespaces: [namespace],
          where: { kind: KIND.memory, contentHash: { in: all.slice(i, i + LOOKUP_CHUNK) } },
        };
        for await (const record of this.scanRecords(filter)) {
          const memory = recordToMemory(record);
          found.add(namespace, memory.contentHash, memory);
        }
      }
    }
    return found;
  }

  /** Which of these ids any record already has (any tenant: ids are unique in the backend). */
  private async existingIds(ids: readonly string[]): Promise<Set<string>> {
    // Repeats are not removed first (a set of the batch's ids): rare, and a repeat is only asked twice.
    const taken = new Set<string>();
    for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
      for (const r of await this.backend.get(ids.slice(i, i + LOOKUP_CHUNK), { tenant: null, withVectors: false })) {
        taken.add(r.id);
      }
    }
    return taken;
  }

  /**
   * Sets memories' entities: those given (or kept from a model) and, unless turned off, those their
   * content mentions. One `linked` lookup for the batch decides the words that only open a sentence.
   */
  private async linkEntities(memories: Memory[], given: readonly EntitySource['given'][]): Promise<void> {
    const linked = this.backend.capabilities.links ? this.backend.linked?.bind(this.backend) : undefined;
    // A memory is its own entity source when nothing is given with it (no object a memory for the batch).
    const sources = given.every((g) => g === undefined)
      ? (memories as unknown as EntitySource[])
      : memories.map((m, i) => ({
          content: m.content,
          metadata: m.metadata,
          occurredAt: m.occurredAt,
          given: given[i],
        }));
    const entities = await batchEntities(sources, {
      extract: this.options.entities !== false,
      known: async (keys) =>
        new Set(
          linked
            ? (await linked({ tenant: this.tenant, keys, limit: 0 })).filter((l) => l.count > 0).map((l) => l.key)
            : [],
        ),
    });
    setEntities(memories, entities);
  }

  private async mustGet(id: string): Promise<Memory> {
    const memory = await this.get(id);
    if (!memory) throw new AgentMemoryError('NOT_FOUND', `No memory with id ${id} in this scope.`, { details: { id } });
    return memory;
  }
}

/**
 * What recall ranks a memory by before it reads it whole (`partialHits`): active first (`status`), and
 * the importance factor (`importance`, `lastAccessedAt`, the half-life of its `type`).
 */
const RANK_ATTRIBUTES: readonly string[] = ['status', 'type', 'importance', 'lastAccessedAt'];
