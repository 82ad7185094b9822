import { fusedRelevance, fuseRrf } from '../backends/rrf';
import type { BackendRecord, JsonObject, RecordFilter, SearchHit } from '../contracts';
import { AgentMemoryError, invalidInput } from '../errors';
import { SKILLS_NAMESPACE } from '../scope';
import { KIND } from '../store/codec';
import type { MemoryStore } from '../store/memory-store';
import { stableId, toMillis } from '../util';
import { type LoadSkillsResult, loadSkills } from './loader';
import {
  type CompiledKeyword,
  compileKeywords,
  GlobMatcher,
  matchKeywords,
  messageTerms,
  pathsInMessage,
} from './signals';
import type { ActivatedSkill, ActivationSignal, Skill, SkillInput, SkillSignals } from './skill';
import { skillHash, validateSkillInput, validateSkillName } from './validate';

/** Weights of the activation score (they sum to 1). */
export const SKILL_SCORE_WEIGHTS = { semantic: 0.55, keyword: 0.25, glob: 0.15, importance: 0.05 } as const;
export const DEFAULT_SKILL_K = 3;
export const DEFAULT_SKILL_MIN_SCORE = 0.3;
/** Skills scoring below this share of the top skill are dropped. */
export const DEFAULT_SKILL_GAP_RATIO = 0.75;
/** Characters of content that go into a skill's embedding (with name, description and keywords). */
export const SKILL_EMBED_CONTENT_CHARS = 1000;

/**
 * Cosine similarities mapped onto the absolute 0..1 semantic scale: at or
 * below `floor` a skill is unrelated (0), at or above `ceiling` fully
 * related (1), linear in between. With the hashing embedder, unrelated short
 * messages still share character trigrams with a skill ("the", "ing") and
 * score 0.10-0.22, while a message on the skill's topic scores 0.28-0.50
 * (measured on examples/skills). Semantic embedders give unrelated text a
 * higher baseline, so their range sits higher; tune it per model with
 * `semanticRange`.
 */
export const LEXICAL_SEMANTIC_RANGE = { floor: 0.2, ceiling: 0.45 } as const;
export const DENSE_SEMANTIC_RANGE = { floor: 0.25, ceiling: 0.6 } as const;

export interface SkillRegistryOptions {
  /** Override the cosine range of the semantic score (see `LEXICAL_SEMANTIC_RANGE`). */
  semanticRange?: { floor: number; ceiling: number };
  /**
   * RRF weights of the dense and keyword lists. Default lexical 0.25/1, else 1/1: more dense weight
   * than recall uses (0.03), because the semantic signal is scored from the dense cosine of the
   * candidates the fusion keeps, and the activation thresholds were calibrated with it.
   */
  fusionWeights?: { dense: number; keyword: number };
  /**
   * Skills are the application's, shared by every tenant (stored under the
   * default tenant) — default true. `false`: each tenant has its own skills.
   */
  shared?: boolean;
}

/** The `skillActivation` option of AgentMemory. */
export interface SkillSettings {
  skillActivation?: SkillRegistryOptions;
}

export interface ActivateOptions {
  /** The file (or files) the user is working on; matched against glob patterns. */
  filePath?: string | readonly string[];
  /** At most this many skills besides the `alwaysApply` ones; default 3. */
  k?: number;
  /** Minimum score of a skill that only the semantic signal found; default 0.30. */
  minScore?: number;
  /** Drop skills below this share of the top score; default 0.75 (0 turns the filter off). */
  gapRatio?: number;
}

export interface RegisterResult {
  skills: Skill[];
  added: string[];
  updated: string[];
  unchanged: string[];
}

export interface LoadIntoRegistryResult extends RegisterResult {
  problems: LoadSkillsResult['problems'];
}

interface Compiled {
  hash: string;
  keywords: CompiledKeyword[];
}

/**
 * Skills of the application (or of one tenant, with `shared: false`), stored through the backend in the `_skills`
 * namespace (so they travel with snapshots), and the engine that decides
 * which of them a message activates.
 */
export class SkillRegistry {
  private readonly store: MemoryStore;
  private readonly options: SkillRegistryOptions;
  /** Keyword matchers per skill id, rebuilt when the stored skill changes. */
  private readonly compiled = new Map<string, Compiled>();
  private readonly globs = new GlobMatcher();

  constructor(store: MemoryStore, options: SkillRegistryOptions = {}) {
    if (!store?.backend) throw invalidInput('SkillRegistry needs a MemoryStore (or AgentMemory).');
    const range = options.semanticRange;
    if (range && !(Number.isFinite(range.floor) && Number.isFinite(range.ceiling) && range.ceiling > range.floor)) {
      throw invalidInput(
        'semanticRange needs finite numbers with ceiling > floor, e.g. { floor: 0.05, ceiling: 0.35 }.',
      );
    }
    this.store = store;
    this.options = options;
  }

  /** The tenant skills are stored under: the default one unless skills are per tenant. */
  get tenant(): string {
    return this.options.shared === false ? this.store.tenant : '';
  }

  /** Adds a skill, or replaces the skill of the same name. */
  async register(input: SkillInput): Promise<Skill> {
    const result = await this.registerMany([input]);
    return result.skills[0]!;
  }

  /**
   * Adds or replaces many skills with one embedding call. A skill identical to
   * the stored one is left as it is (no write, no embedding). Within the
   * batch, a later skill of the same name replaces an earlier one.
   */
  async registerMany(inputs: readonly SkillInput[]): Promise<RegisterResult> {
    await this.store.init();
    if (!Array.isArray(inputs)) throw invalidInput('registerMany() takes an array of skills { name, content }.');
    const byName = new Map(inputs.map((input) => validateSkillInput(input)).map((v) => [v.name, v]));
    const result: RegisterResult = { skills: [], added: [], updated: [], unchanged: [] };
    if (byName.size === 0) return result;
    const ids = [...byName.keys()].map((name) => this.idFor(name));
    const existing = new Map(
      (await this.store.backend.get(ids, { tenant: this.tenant, withVectors: false }))
        .filter((r) => r.attributes.kind === KIND.skill)
        .map((r) => [r.id, recordToSkill(r)]),
    );
    const now = new Date().toISOString();
    const fresh: Skill[] = [];
    for (const valid of byName.values()) {
      const id = this.idFor(valid.name);
      const hash = skillHash(valid);
      const before = existing.get(id);
      if (before && before.contentHash === hash) {
        result.skills.push(before);
        result.unchanged.push(valid.name);
        continue;
      }
      const skill: Skill = {
        specificationVersion: 'v1',
        ...valid,
        contentHash: hash,
        createdAt: before?.createdAt ?? now,
        updatedAt: now,
      };
      fresh.push(skill);
      result.skills.push(skill);
      (before ? result.updated : result.added).push(valid.name);
    }
    if (fresh.length > 0) {
      const vectors = await this.store.embedDocuments(fresh.map(embeddingText));
      await this.store.backend.upsert(fresh.map((s, i) => this.toRecord(s, vectors[i]!)));
    }
    return result;
  }

  /** Reads a directory of skills (every supported format) and registers what loaded. */
  async load(dir: string): Promise<LoadIntoRegistryResult> {
    const loaded = await loadSkills(dir);
    const registered = await this.registerMany(loaded.skills);
    return { ...registered, problems: loaded.problems };
  }

  /** Removes a skill; false when there was none of that name. */
  async unregister(name: string): Promise<boolean> {
    await this.store.init();
    const id = this.idFor(validateSkillName(name));
    const [record] = await this.store.backend.get([id], { tenant: this.tenant, withVectors: false });
    if (!record || record.attributes.kind !== KIND.skill) return false;
    await this.store.backend.delete([id]);
    this.compiled.delete(id);
    return true;
  }

  async get(name: string): Promise<Skill | undefined> {
    await this.store.init();
    const id = this.idFor(validateSkillName(name));
    const [record] = await this.store.backend.get([id], { tenant: this.tenant, withVectors: false });
    return record && record.attributes.kind === KIND.skill ? recordToSkill(record) : undefined;
  }

  /** Every skill of this tenant, by name. */
  async list(): Promise<Skill[]> {
    await this.store.init();
    const skills: Skill[] = [];
    for await (const record of this.store.scanRecords(this.filter())) skills.push(recordToSkill(record));
    return skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * The skills a message (and the file being worked on) calls for, best
   * first: `alwaysApply` skills, then up to `k` skills whose weighted score
   * passes the minimum and the gap filter. See docs/skills.md for the scoring.
   */
  async activate(message: string, options: ActivateOptions = {}): Promise<ActivatedSkill[]> {
    await this.store.init();
    if (typeof message !== 'string') throw invalidInput('activate() takes the user message as a string.');
    const k = options.k ?? DEFAULT_SKILL_K;
    if (!Number.isInteger(k) || k < 0) throw invalidInput(`k must be a non-negative integer, got ${k}.`);
    const minScore = options.minScore ?? DEFAULT_SKILL_MIN_SCORE;
    const gapRatio = options.gapRatio ?? DEFAULT_SKILL_GAP_RATIO;
    if (!Number.isFinite(minScore)) throw invalidInput('minScore must be a number.');
    if (!(gapRatio >= 0 && gapRatio <= 1)) throw invalidInput(`gapRatio must be between 0 and 1, got ${gapRatio}.`);
    const files =
      options.filePath === undefined
        ? []
        : typeof options.filePath === 'string'
          ? [options.filePath]
          : [...options.filePath];
    if (files.some((f) => typeof f !== 'string'))
      throw invalidInput('filePath must be a path string or a list of them.');

    const total = await this.store.backend.count(this.filter());
    if (total === 0) return [];
    const { scores: semantic, records: found } =
      message.trim() === ''
        ? { scores: new Map<string, NonNullable<SkillSignals['semantic']>>(), records: [] as BackendRecord[] }
        : await this.semanticScores(message, total);
    // The dense search over every skill usually returns them all; scan only when it did not.
    let records = found;
    if (records.length < total) {
      records = [];
      for await (const record of this.store.scanRecords(this.filter())) records.push(record);
    }
    const terms = messageTerms(message);
    const paths = [...new Set([...pathsInMessage(message), ...files.filter((f) => f.trim() !== '')])];
    const matchGlobs = this.globs.forPaths(paths);

    type Candidate = Omit<ActivatedSkill, 'skill'> & { record: BackendRecord; name: string };
    const always: Candidate[] = [];
    const scored: Candidate[] = [];
    const live = new Set<string>();
    const w = SKILL_SCORE_WEIGHTS;
    for (const record of records) {
      live.add(record.id);
      // Read the stored payload in place; only the skills returned are copied.
      const skill = record.payload as unknown as Skill;
      const keywords = this.compile(record.id, skill);
      const signals: SkillSignals = {};
      const sem = semantic.get(record.id);
      if (sem && sem.score > 0) signals.semantic = sem;
      const matched = matchKeywords(terms, keywords, message);
      if (matched.length > 0) signals.keyword = { score: 1, matched };
      if (paths.length > 0 && skill.globPatterns?.length > 0) {
        const hit = matchGlobs(skill.globPatterns);
        if (hit.paths.length > 0) signals.glob = { score: 1, ...hit };
      }
      const score =
        w.semantic * (signals.semantic?.score ?? 0) +
        w.keyword * (signals.keyword?.score ?? 0) +
        w.glob * (signals.glob?.score ?? 0) +
        w.importance * skill.importance;
      const fired = (['semantic', 'keyword', 'glob'] as const).filter((s) => signals[s] !== undefined);
      if (skill.alwaysApply) {
        always.push({ record, name: skill.name, score, activatedBy: 'always', signals });
      } else if (fired.length > 0) {
        // Importance alone never activates a skill: some signal must have fired.
        const activatedBy: ActivationSignal | 'combined' = fired.length === 1 ? fired[0]! : 'combined';
        scored.push({ record, name: skill.name, score, activatedBy, signals });
      }
    }
    for (const id of this.compiled.keys()) if (!live.has(id)) this.compiled.delete(id);

    const byScore = (a: Candidate, b: Candidate) =>
      b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    always.sort(byScore);
    // A trigger keyword or a matching glob was declared by the skill's author: it
    // makes the skill a candidate on its own. Semantic-only matches need minScore.
    const passing = scored
      .filter((s) => s.score >= minScore || s.signals.keyword !== undefined || s.signals.glob !== undefined)
      .sort(byScore);
    const top = passing[0]?.score ?? 0;
    const chosen = passing.filter((s) => s.score >= top * gapRatio).slice(0, k);
    return [...always, ...chosen].map(({ record, name: _name, ...rest }) => ({
      skill: recordToSkill(record),
      ...rest,
    }));
  }

  // ---------------------------------------------------------------- internals

  private idFor(name: string): string {
    return stableId('skill', this.tenant, name);
  }

  private filter(): RecordFilter {
    return { tenant: this.tenant, namespaces: [SKILLS_NAMESPACE], where: { kind: KIND.skill } };
  }

  private compile(id: string, skill: Skill): CompiledKeyword[] {
    const cached = this.compiled.get(id);
    if (cached && cached.hash === skill.contentHash) return cached.keywords;
    const keywords = compileKeywords(skill.triggerKeywords ?? []);
    this.compiled.set(id, { hash: skill.contentHash, keywords });
    return keywords;
  }

  private toRecord(skill: Skill, vector: Float32Array): BackendRecord {
    return {
      id: this.idFor(skill.name),
      namespace: SKILLS_NAMESPACE,
      tenant: this.tenant,
      text: embeddingText(skill),
      vector,
      attributes: {
        kind: KIND.skill,
        name: skill.name,
        alwaysApply: skill.alwaysApply,
        importance: skill.importance,
        contentHash: skill.contentHash,
        updatedAt: toMillis(skill.updatedAt),
      },
      payload: skill as unknown as JsonObject,
    };
  }

  /**
   * Absolute semantic score per skill id: the cosine confidence (mapped onto
   * 0..1 by the semantic range) times the fused hybrid relevance recall uses
   * (1 when first in both the dense and the keyword list). A message that
   * shares nothing with any skill scores 0 everywhere, whatever the ranks.
   */
  private async semanticScores(
    message: string,
    total: number,
  ): Promise<{ scores: Map<string, NonNullable<SkillSignals['semantic']>>; records: BackendRecord[] }> {
    const embedder = this.store.embedder;
    const embedded = await embedder.embed([message], { purpose: 'query' });
    this.store.usage.calls += embedded.usage?.calls ?? 1;
    this.store.usage.tokens += embedded.usage?.tokens ?? 0;
    const vector = embedded.embeddings[0];
    if (!vector || vector.length !== embedder.dimension) {
      throw new AgentMemoryError(
        'DIMENSION_MISMATCH',
        `Embedder ${embedder.id} returned no ${embedder.dimension}-dimensional vector for the message. Fix its dimension option.`,
      );
    }
    const range = this.options.semanticRange ?? (embedder.lexical ? LEXICAL_SEMANTIC_RANGE : DENSE_SEMANTIC_RANGE);
    const weights =
      this.options.fusionWeights ?? (embedder.lexical ? { dense: 0.25, keyword: 1 } : { dense: 1, keyword: 1 });
    const filter = this.filter();
    const backend = this.store.backend;
    // Every skill takes part: a few hundred candidates cost less than a missed one.
    const pool = total;
    let fused: SearchHit[];
    let totalWeight: number;
    let records: BackendRecord[];
    if (backend.capabilities.nativeHybrid) {
      fused = await backend.search({ mode: 'hybrid', vector, text: message, filter, k: pool, weights });
      totalWeight = weights.dense + weights.keyword;
      records = fused.map((h) => h.record);
    } else {
      const [dense, keyword] = await Promise.all([
        backend.search({ mode: 'dense', vector, filter, k: pool }),
        backend.capabilities.textSearch ? backend.search({ mode: 'keyword', text: message, filter, k: pool }) : [],
      ]);
      const keywordWeight = backend.capabilities.textSearch ? weights.keyword : 0;
      fused = fuseRrf(dense, keyword, { dense: weights.dense, keyword: keywordWeight }, pool);
      totalWeight = weights.dense + keywordWeight;
      records = dense.map((h) => h.record);
    }
    const scores = new Map<string, NonNullable<SkillSignals['semantic']>>();
    for (const hit of fused) {
      const cosine = hit.dense?.score ?? 0;
      const confidence = clamp01((cosine - range.floor) / (range.ceiling - range.floor));
      const relevance = fusedRelevance(hit.score, totalWeight);
      const entry: NonNullable<SkillSignals['semantic']> = {
        score: round(confidence * relevance),
        cosine: round(cosine),
      };
      if (hit.dense) entry.denseRank = hit.dense.rank;
      if (hit.keyword) entry.keywordRank = hit.keyword.rank;
      scores.set(hit.record.id, entry);
    }
    return { scores, records };
  }
}

/** What a skill is found by: name, description, keywords and the start of its content. */
export function embeddingText(skill: Pick<Skill, 'name' | 'description' | 'triggerKeywords' | 'content'>): string {
  return [
    skill.name,
    skill.description,
    skill.triggerKeywords.join(', '),
    skill.content.slice(0, SKILL_EMBED_CONTENT_CHARS),
  ]
    .filter((part) => part !== '')
    .join('\n');
}

export function recordToSkill(record: BackendRecord): Skill {
  const p = record.payload as unknown as Skill;
  if (record.attributes.kind !== KIND.skill || typeof p?.content !== 'string' || typeof p?.name !== 'string') {
    throw new AgentMemoryError('NOT_FOUND', `Record ${record.id} is not a skill.`);
  }
  return {
    ...p,
    globPatterns: [...(p.globPatterns ?? [])],
    triggerKeywords: [...(p.triggerKeywords ?? [])],
    toolsAllowed: [...(p.toolsAllowed ?? [])],
    tags: [...(p.tags ?? [])],
    metadata: structuredClone(p.metadata ?? {}),
    ...(p.source ? { source: { ...p.source } } : {}),
  };
}

function clamp01(x: number): number {
  return Math.max(0, Math.min(x, 1));
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
