import { randomUUID } from 'node:crypto';
import type { BackendRecord, JsonObject, MemoryBackend, RecordFilter } from '../contracts';
import { AgentMemoryError, invalidInput } from '../errors';
import { checkFusionWeights } from '../embedding/fusion-weights';
import { SKILLS_NAMESPACE } from '../scope';
import { KIND } from '../store/codec';
import type { MemoryStore } from '../store/memory-store';
import { stableId, toMillis } from '../util';
import { type LoadSkillsResult, loadSkills } from './loader';
import { ActivationIndex, type IndexedSkill } from './activation-index';
import {
  type ActivationParameters,
  type ActivationParametersInput,
  DEFAULT_ACTIVATION_PARAMETERS,
  resolveActivationParameters,
} from './activation-parameters';
import { formatForPrompt } from './format';
import { pathsInMessage } from './signals';
import type { ActivatedSkill, ActivationSignal, Skill, SkillInput, SkillSignals } from './skill';
import { skillHash, validateSkillInput, validateSkillName } from './validate';

/** Weights of the activation score (they sum to 1). */
export const SKILL_SCORE_WEIGHTS = DEFAULT_ACTIVATION_PARAMETERS.scoreWeights;
export const DEFAULT_SKILL_K = 3;
export const DEFAULT_SKILL_MIN_SCORE = DEFAULT_ACTIVATION_PARAMETERS.minScore;
/** Skills scoring below this share of the top skill are dropped. */
export const DEFAULT_SKILL_GAP_RATIO = DEFAULT_ACTIVATION_PARAMETERS.gapRatio;
/** Characters of content that go into a skill's embedding (with name, description and keywords). */
export const SKILL_EMBED_CONTENT_CHARS = 1000;

/**
 * Cosine similarities mapped onto the absolute 0..1 semantic scale: at or
 * below `floor` a skill is unrelated (0), at or above `ceiling` fully
 * related (1), linear in between. With the hashing embedder, unrelated
 * messages share character n-grams with long skills (real rules of 10 kB)
 * and reach 0.25-0.35, so the dense part only counts above 0.30 (chosen by
 * cross-validation on skills-dev's halves). Semantic embedders give unrelated text a
 * higher baseline, so their range sits higher; tune it per model with
 * `semanticRange`.
 */
export const LEXICAL_SEMANTIC_RANGE = DEFAULT_ACTIVATION_PARAMETERS.lexicalSemanticRange;
export const DENSE_SEMANTIC_RANGE = { floor: 0.25, ceiling: 0.6 } as const;
/**
 * With the hashing embedder the dense cosine is itself lexical overlap without
 * idf (common words count as much as rare ones), so it weighs less than the
 * BM25 relevance in the semantic signal.
 */
export const LEXICAL_FUSION_WEIGHTS = DEFAULT_ACTIVATION_PARAMETERS.lexicalFusionWeights;

export interface SkillRegistryOptions {
  /** Override the cosine range of the semantic score (see `LEXICAL_SEMANTIC_RANGE`). */
  semanticRange?: { floor: number; ceiling: number };
  /**
   * Weights of the dense and lexical (BM25 over the library) relevances in the semantic signal, fused
   * as a weighted noisy-OR. Default for a lexical embedder `LEXICAL_FUSION_WEIGHTS`, else equal (1/1).
   */
  fusionWeights?: { dense: number; keyword: number };
  /**
   * Skills are the application's, shared by every tenant (stored under the
   * default tenant) — default true. `false`: each tenant has its own skills.
   */
  shared?: boolean;
  /**
   * The constants activation scores with (BM25, field weights, the lexical floor, score weights…), in
   * part: the rest keep `DEFAULT_ACTIVATION_PARAMETERS`. For a library unlike the ones the defaults
   * were measured on; check a change with `agentmem eval` on messages of your own (docs/eval.md).
   */
  parameters?: ActivationParametersInput;
}

/** The `skillActivation` option of AgentMemory. */
export interface SkillSettings {
  skillActivation?: SkillRegistryOptions;
}

export interface ActivateOptions {
  /** The files the user is working on; matched against glob patterns (with paths named in the message). */
  files?: readonly string[];
  /** The same as `files` (one path or several); both may be given. */
  filePath?: string | readonly string[];
  /** At most this many skills besides the `alwaysApply` ones; default 3. */
  k?: number;
  /** Minimum score of a skill that only the semantic signal found; default 0.30. */
  minScore?: number;
  /** Drop skills below this share of the top score; default 0.65 (0 turns the filter off). */
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

/** Why a skill with some signal was not activated (`active`: it was). */
export type CandidateStatus = 'active' | 'no-evidence' | 'below-minimum' | 'gap' | 'beyond-k';

export interface SkillCandidate {
  name: string;
  /** The index entry: `entry.skill` is the stored skill, read in place (do not modify). */
  entry: IndexedSkill;
  score: number;
  /** What made it active (absent when nothing but a catch-all glob fired). */
  activatedBy?: ActivationSignal | 'combined' | 'always';
  signals: SkillSignals;
  status: CandidateStatus;
  /** Why it was left out, in words. */
  reason?: string;
}

export interface ActivationExplanation {
  message: string;
  /** Every path matched against globs: the `files` given and the paths found in the message. */
  paths: string[];
  /** The words of the message taken as file paths. */
  pathsFromMessage: string[];
  /** Skills where some signal fired (and `alwaysApply` ones), best first. */
  candidates: SkillCandidate[];
}

/**
 * Skills of the application (or of one tenant, with `shared: false`), stored through the backend in the `_skills`
 * namespace (so they travel with snapshots), and the engine that decides
 * which of them a message activates.
 */
export class SkillRegistry {
  private readonly store: MemoryStore;
  private readonly options: SkillRegistryOptions;
  private readonly params: ActivationParameters;

  constructor(store: MemoryStore, options: SkillRegistryOptions = {}) {
    if (!store?.backend) throw invalidInput('SkillRegistry needs a MemoryStore (or AgentMemory).');
    const range = options.semanticRange;
    if (range && !(Number.isFinite(range.floor) && Number.isFinite(range.ceiling) && range.ceiling > range.floor)) {
      throw invalidInput(
        'semanticRange needs finite numbers with ceiling > floor, e.g. { floor: 0.05, ceiling: 0.35 }.',
      );
    }
    checkFusionWeights(options.fusionWeights, 'skillActivation fusionWeights');
    this.store = store;
    this.options = options;
    this.params = resolveActivationParameters(options.parameters);
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
      await this.bump();
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
    await this.bump();
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
   * The skills a message (and the files being worked on) calls for, best
   * first: `alwaysApply` skills, then up to `k` skills whose weighted score
   * passes the minimum and the gap filter. See docs/skills.md for the scoring.
   */
  async activate(message: string, options: ActivateOptions = {}): Promise<ActivatedSkill[]> {
    const explained = await this.explain(message, options);
    return explained.candidates
      .filter((c) => c.status === 'active')
      .map(({ entry, score, activatedBy, signals }) => ({
        skill: recordToSkill(entry.record),
        score,
        activatedBy: activatedBy!,
        signals,
      }));
  }

  /**
   * What `activate` decides and why: every skill where some signal fired,
   * best first, with its signals, its score, and whether it was activated or
   * left out (below the minimum, by the gap filter, beyond `k`).
   */
  async explain(message: string, options: ActivateOptions = {}): Promise<ActivationExplanation> {
    await this.store.init();
    if (typeof message !== 'string') throw invalidInput('activate() takes the user message as a string.');
    const k = options.k ?? DEFAULT_SKILL_K;
    if (!Number.isInteger(k) || k < 0) throw invalidInput(`k must be a non-negative integer, got ${k}.`);
    const gapRatio = options.gapRatio ?? this.params.gapRatio;
    if (options.minScore !== undefined && !Number.isFinite(options.minScore))
      throw invalidInput('minScore must be a number.');
    if (!(gapRatio >= 0 && gapRatio <= 1)) throw invalidInput(`gapRatio must be between 0 and 1, got ${gapRatio}.`);
    const files = filesOf(options);
    const index = await this.index();
    const minScore = options.minScore ?? libraryMinScore(this.params, index.size);
    const fromText = pathsInMessage(message);
    const paths = [...new Set([...fromText, ...files])];
    const vector = message.trim() === '' || index.size === 0 ? undefined : await this.embedMessage(message);
    const embedder = this.store.embedder;
    const raw = index.signals(message, vector, paths, {
      range: this.options.semanticRange ?? (embedder.lexical ? this.params.lexicalSemanticRange : DENSE_SEMANTIC_RANGE),
      weights:
        this.options.fusionWeights ?? (embedder.lexical ? this.params.lexicalFusionWeights : { dense: 1, keyword: 1 }),
    });

    const w = this.params.scoreWeights;
    const always: SkillCandidate[] = [];
    const scored: SkillCandidate[] = [];
    for (const { entry, signals, declared } of raw) {
      const score = round(
        w.semantic * (signals.semantic?.score ?? 0) +
          w.keyword * (signals.keyword?.score ?? 0) +
          w.glob * (signals.glob?.score ?? 0) +
          w.importance * entry.skill.importance,
      );
      const fired = (['semantic', 'keyword', 'glob'] as const).filter((s) => (signals[s]?.score ?? 0) > 0);
      const candidate: SkillCandidate = { name: entry.skill.name, entry, score, signals, status: 'active' };
      if (entry.skill.alwaysApply) {
        candidate.activatedBy = 'always';
        always.push(candidate);
      } else if (fired.length === 0) {
        // A catch-all glob matched, nothing else: shown by explain, never active.
        candidate.status = 'no-evidence';
        candidate.reason = 'only a catch-all glob matched, which is no evidence';
        scored.push(candidate);
      } else {
        // Importance alone never activates a skill: some signal must have fired.
        candidate.activatedBy = fired.length === 1 ? fired[0]! : 'combined';
        // A declared trigger keyword or path-specific glob makes a candidate on its own; the rest needs minScore.
        if (score < minScore && !declared) {
          candidate.status = 'below-minimum';
          candidate.reason = `score ${score.toFixed(3)} < minimum ${minScore}`;
        }
        scored.push(candidate);
      }
    }
    const byScore = (a: SkillCandidate, b: SkillCandidate) =>
      b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    always.sort(byScore);
    scored.sort(byScore);
    const top = scored.find((c) => c.status === 'active')?.score ?? 0;
    // Once one skill reached the minimum, the message is about something the library covers, and a
    // skill beside it needs less (`companionMinScore`): on short skills the second right one often
    // scores just under the minimum. A message where no skill reaches the minimum still activates none.
    const companion = Math.min(this.params.companionMinScore, minScore);
    if (scored.some((c) => c.status === 'active' && c.score >= minScore))
      for (const c of scored) {
        if (c.status !== 'below-minimum' || c.score < companion) continue;
        c.status = 'active';
        delete c.reason;
      }
    let taken = 0;
    for (const c of scored) {
      if (c.status !== 'active') continue;
      if (c.score < top * gapRatio) {
        c.status = 'gap';
        c.reason = `score ${c.score.toFixed(3)} < ${gapRatio} × top ${top.toFixed(3)}`;
      } else if (taken >= k) {
        c.status = 'beyond-k';
        c.reason = `${k} better skills were taken (k = ${k})`;
      } else taken++;
    }
    return { message, paths, pathsFromMessage: fromText, candidates: [...always, ...scored] };
  }

  /**
   * The library as a catalog: every skill's name and one-line description,
   * the ones relevant to `message` first (as `explain` ranks them), then the
   * rest by name. What catalog mode lists for the model to choose from.
   */
  async catalog(message = '', options: Pick<ActivateOptions, 'files' | 'filePath'> = {}): Promise<SkillSummary[]> {
    const index = await this.index();
    const byName = (a: IndexedSkill, b: IndexedSkill) =>
      a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0;
    let ordered = [...index.entries].sort(byName);
    if (message.trim() !== '') {
      const first = (await this.explain(message, options)).candidates.map((c) => c.entry);
      const seen = new Set(first.map((e) => e.id));
      const raw = index.relevance(message, await this.embedMessage(message));
      const position = new Map(index.entries.map((e, i) => [e.id, i]));
      const rest = ordered
        .filter((e) => !seen.has(e.id))
        .sort((a, b) => raw[position.get(b.id)!]! - raw[position.get(a.id)!]! || byName(a, b));
      ordered = [...first, ...rest];
    }
    return ordered.map(({ skill }) => ({ name: skill.name, description: oneLine(skill.description) }));
  }

  /**
   * A skill's full instructions rendered for the model (sanitised like the
   * context block): what the `load_skill` tools return.
   */
  async instructions(name: string): Promise<string> {
    const skill = await this.get(name);
    if (!skill) {
      throw new AgentMemoryError(
        'NOT_FOUND',
        `No skill named ${JSON.stringify(name)}. Use a name from the skill catalog.`,
        {
          details: { name },
        },
      );
    }
    return formatForPrompt([{ skill, score: 1, activatedBy: 'always', signals: {} }], {
      maxChars: skill.content.length + skill.name.length + 1000,
    });
  }

  /** Drops the in-process activation index; the next activation rebuilds it from the backend. */
  invalidate(): void {
    this.indexes().delete(this.indexKey());
  }

  // ---------------------------------------------------------------- internals

  private idFor(name: string): string {
    return stableId('skill', this.tenant, name);
  }

  private filter(): RecordFilter {
    return { tenant: this.tenant, namespaces: [SKILLS_NAMESPACE], where: { kind: KIND.skill } };
  }

  /**
   * The activation index, rebuilt when the library changed: through any
   * registry on the same store, in this process or another on the same SQLite
   * file (the version stamp, read per message), or by a writer that bypasses
   * registries such as a snapshot merge (the number of skills, checked at most
   * once per `COUNT_CHECK_MS`).
   */
  private async index(): Promise<ActivationIndex> {
    const stamp = (await this.store.backend.getMeta(this.versionKey())) ?? '';
    const cached = this.indexes().get(this.indexKey());
    if (cached && cached.stamp === stamp && Date.now() - cached.countedAt < COUNT_CHECK_MS) return cached.index;
    const count = await this.store.backend.count(this.filter());
    if (cached && cached.stamp === stamp && cached.count === count) {
      cached.countedAt = Date.now();
      return cached.index;
    }
    const records: BackendRecord[] = [];
    for await (const record of this.store.scanRecords(this.filter(), true)) records.push(record);
    const index = new ActivationIndex(records, this.store.embedder.dimension, this.params);
    this.indexes().set(this.indexKey(), { stamp, count: records.length, countedAt: Date.now(), index });
    return index;
  }

  /** Indexes are shared by every registry on the same backend (scoped views of a store make their own registry). */
  private indexes(): Map<string, CachedIndex> {
    let map = INDEXES.get(this.store.backend);
    if (!map) {
      map = new Map();
      INDEXES.set(this.store.backend, map);
    }
    return map;
  }

  private indexKey(): string {
    return `${this.tenant}\u0000${this.store.embedder.id}\u0000${JSON.stringify(this.params)}`;
  }

  private versionKey(): string {
    return `skills.version:${this.tenant}`;
  }

  /** Marks the library changed, for this registry and every other one on the same store. */
  private async bump(): Promise<void> {
    this.invalidate();
    await this.store.backend.setMeta(this.versionKey(), `${Date.now().toString(36)}-${randomUUID()}`);
  }

  private async embedMessage(message: string): Promise<Float32Array> {
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
    return vector;
  }

  private toRecord(skill: Skill, vector: Float32Array): BackendRecord {
    return skillRecord(skill, this.idFor(skill.name), this.tenant, vector);
  }
}

/** A skill as the registry stores it (text, attributes and payload derived from the skill). */
export function skillRecord(skill: Skill, id: string, tenant: string, vector: Float32Array | undefined): BackendRecord {
  const record: BackendRecord = {
    id,
    namespace: SKILLS_NAMESPACE,
    tenant,
    text: embeddingText(skill),
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
  if (vector) record.vector = vector;
  return record;
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

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * Registry writes (in any process) stamp a version that every activation reads (one key lookup);
 * the number of skills, which also catches writers that bypass the registry (a snapshot merge),
 * is checked at most this often (counting costs 0.3 ms on SQLite at 1,000 skills).
 */
const COUNT_CHECK_MS = 1000;

interface CachedIndex {
  stamp: string;
  count: number;
  countedAt: number;
  index: ActivationIndex;
}

const INDEXES = new WeakMap<MemoryBackend, Map<string, CachedIndex>>();

/** A skill as the catalog lists it. */
export interface SkillSummary {
  name: string;
  description: string;
}

/** The first line of a description, at most 200 characters. */
function oneLine(text: string): string {
  const line = (text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 200 ? `${line.slice(0, 199).trimEnd()}…` : line.trim();
}

function filesOf(options: ActivateOptions): string[] {
  const out: string[] = [];
  if (options.files !== undefined && !Array.isArray(options.files))
    throw invalidInput('files must be a list of path strings, e.g. { files: ["src/app.ts"] }.');
  for (const value of [options.files, options.filePath]) {
    if (value === undefined) continue;
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || list.some((f) => typeof f !== 'string'))
      throw invalidInput('files (or filePath) must be a list of path strings.');
    for (const f of list as string[]) if (f.trim() !== '') out.push(f);
  }
  return out;
}

/**
 * The minimum score for a library of `skills` skills: `minScore` from `smallLibrarySkills` up, and
 * `smallLibraryStep` more for each halving below it. In a small library a word of everyday
 * English that one skill happens to write ("reply", "release", "example") looks as distinctive as
 * a library's name: samples of 15-60 of skills-dev's skills activated something for 4-8% of the
 * unrelated messages at 0.3, the whole library for none.
 */
export function libraryMinScore(params: ActivationParameters, skills: number): number {
  const { minScore, smallLibrarySkills, smallLibraryStep } = params;
  if (skills <= 0 || skills >= smallLibrarySkills || smallLibraryStep === 0) return minScore;
  return round(minScore + smallLibraryStep * Math.log2(smallLibrarySkills / skills));
}
