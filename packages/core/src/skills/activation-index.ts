// The in-memory index activation scores with: the class's signals read the per-skill structures
// its constructor builds. How a skill's text and a message become terms is in activation-text.ts.
import type { BackendRecord } from '../contracts';
import { stem } from '../text';
import {
  bigrams,
  body,
  clamp01,
  headings,
  idf,
  lexicalRelevance,
  lexicalTerms,
  listOf,
  mentionContexts,
  nameAcronym,
  pathWords,
  queryTerms,
  round,
  sentences,
  splitName,
} from './activation-text';
import {
  type CompiledKeyword,
  compileKeywords,
  fileTypeName,
  fileTypeNames,
  GLOB_SPECIFICITY_SCORE,
  GlobMatcher,
  type GlobSpecificity,
  globSpecificity,
  type MatchTerm,
  matchKeywords,
  messageTerms,
} from './signals';
import { type ActivationParameters, DEFAULT_ACTIVATION_PARAMETERS } from './activation-parameters';
import type { Skill, SkillSignals } from './skill';

/** Terms whose associates (`ActivationIndex.associates`) are kept between messages. */
const ASSOCIATE_CACHE = 4096;

export interface IndexedSkill {
  id: string;
  record: BackendRecord;
  /** The stored payload, read in place (copied only for the skills returned). */
  skill: Skill;
  keywords: { compiled: CompiledKeyword; strength: number; source: 'declared' | 'name' }[];
  globs: { pattern: string; specificity: GlobSpecificity }[];
}

/** One skill's signals for a message, before weighting. */
export interface RawSignals {
  entry: IndexedSkill;
  signals: SkillSignals;
  /** The skill's author declared the evidence (a trigger keyword or a path-specific glob). */
  declared: boolean;
}

/** Settings the index scores with. */
export interface IndexScoring {
  range: { floor: number; ceiling: number };
  weights: { dense: number; keyword: number };
}

/**
 * Everything activation needs, kept in memory and built from the stored
 * skills once per change of the library: the skills' vectors (one contiguous
 * array), BM25 postings over name, keywords, description and headings,
 * keywords (declared, or derived from the name), and globs classified by
 * specificity. A message costs one embedding and arithmetic over this, not a
 * backend search.
 */
export class ActivationIndex {
  readonly entries: IndexedSkill[];
  private readonly dimension: number;
  private readonly vectors: Float32Array;
  private readonly norms: Float32Array;
  /** Per term: the skills (with a weighted count) and the document frequency idf reads, which mentions do not raise. */
  private readonly postings = new Map<string, { docs: number[]; tf: number[]; df: number }>();
  /** The library's words by their Porter stem: the forms of one word family (`concurrent`, `concurrency`). */
  private readonly families = new Map<string, string[]>();
  private readonly lengths: Float64Array;
  private readonly averageLength: number;
  /** Keywords by the stem of their first word; symbol keywords (C++) apart. */
  private readonly keywordsByStem = new Map<string, { doc: number; k: number }[]>();
  private readonly literalKeywords: { doc: number; k: number }[] = [];
  private readonly globDocs = new Map<string, number[]>();
  /** Skills by their name as a file type name (`bash`, `pdf`, `csharp`). */
  private readonly typeDocs = new Map<string, number[]>();
  private readonly matcher = new GlobMatcher();
  /** Each skill's description, headings and body as terms, and where each term occurs (skill, place): for `associates`. */
  private streams: string[][] = [];
  private readonly occurrences = new Map<string, number[]>();
  private readonly associateCache = new Map<string, [string, number][]>();
  /** Postings over name, keywords and description alone, and their lengths (`descriptionWeight`). */
  private readonly descriptionPostings = new Map<string, number[]>();
  private readonly descriptionLengths: number[] = [];
  private descriptionAverage = 1;

  constructor(
    records: readonly BackendRecord[],
    dimension: number,
    private readonly params: ActivationParameters = DEFAULT_ACTIVATION_PARAMETERS,
  ) {
    this.dimension = dimension;
    const n = records.length;
    this.vectors = new Float32Array(n * dimension);
    this.norms = new Float32Array(n);
    this.lengths = new Float64Array(n);
    const skills = records.map((r) => r.payload as unknown as Skill);

    let totalLength = 0;
    const kinds = new Map<string, GlobSpecificity>();
    // Every field's terms, once: the postings and the mentions of one skill in another's text both read them.
    const fields = skills.map((skill) => ({
      name: lexicalTerms(splitName(skill.name)),
      keywords: lexicalTerms((skill.triggerKeywords ?? []).join(' ')),
      description: lexicalTerms(skill.description ?? ''),
      headings: lexicalTerms(headings(skill.content ?? '')),
      body: lexicalTerms(body(skill.content ?? '')),
    }));
    const mentioned =
      params.fieldWeights.mentions > 0 && params.mentionWindow > 0
        ? mentionContexts(fields, Math.max(n, params.idfPriorSkills), params.mentionWindow)
        : undefined;
    this.entries = records.map((record, doc) => {
      const skill = skills[doc]!;
      const vector = record.vector;
      if (vector && vector.length === dimension) {
        let sum = 0;
        for (let i = 0; i < dimension; i++) {
          this.vectors[doc * dimension + i] = vector[i]!;
          sum += vector[i]! * vector[i]!;
        }
        this.norms[doc] = Math.sqrt(sum);
      }
      // BM25 postings, weighted per field.
      const tf = new Map<string, number>();
      const pairs = new Map<string, number>();
      const add = (terms: readonly string[], weight: number) => {
        for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + weight);
        for (const p of bigrams(terms)) pairs.set(p, (pairs.get(p) ?? 0) + weight * params.bigramWeight);
      };
      const text = fields[doc]!;
      add(text.name, params.fieldWeights.name);
      add(text.keywords, params.fieldWeights.keywords);
      add(text.description, params.fieldWeights.description);
      add(text.headings, params.fieldWeights.headings);
      add(text.body, params.fieldWeights.body);
      let length = 0;
      for (const count of tf.values()) length += count;
      // The words around this skill's name in other skills' text: postings, but neither length nor
      // document frequency (other authors wrote them, and their words are counted where they wrote them).
      const around = new Map<string, number>();
      for (const [t, count] of mentioned?.[doc] ?? []) {
        const own = tf.get(t);
        if (own === undefined) around.set(t, count * params.fieldWeights.mentions);
        else tf.set(t, own + count * params.fieldWeights.mentions);
      }
      // Word pairs are postings too, but not length: the length is the words'.
      for (const [term, count] of [...tf, ...pairs, ...around]) {
        let list = this.postings.get(term);
        if (!list) {
          list = { docs: [], tf: [], df: 0 };
          this.postings.set(term, list);
        }
        list.docs.push(doc);
        list.tf.push(count);
        if (!around.has(term)) list.df++;
      }
      this.lengths[doc] = length;
      totalLength += length;

      const keywords: IndexedSkill['keywords'] = [];
      const declared = skill.triggerKeywords ?? [];
      if (declared.length > 0) {
        for (const compiled of compileKeywords(declared)) keywords.push({ compiled, strength: 1, source: 'declared' });
      } else {
        for (const compiled of compileKeywords([splitName(skill.name)]))
          keywords.push({ compiled, strength: params.derivedKeywordStrength, source: 'name' });
        // A long name's initials (drf, tdd): people write them, its text may not. A stop word ("and") is none.
        const acronym = params.nameAcronyms > 0 ? nameAcronym(skill.name) : '';
        if (acronym !== '' && lexicalTerms(acronym).length > 0)
          for (const compiled of compileKeywords([acronym]))
            keywords.push({
              compiled,
              strength: params.derivedKeywordStrength * Math.min(1, params.nameAcronyms),
              source: 'name',
            });
      }
      for (const [k, { compiled }] of keywords.entries()) {
        if (compiled.literal) this.literalKeywords.push({ doc, k });
        else {
          listOf(this.keywordsByStem, compiled.terms[0]!.stem).push({ doc, k });
        }
      }

      const globs = (skill.globPatterns ?? []).map((pattern) => {
        const specificity = kinds.get(pattern) ?? globSpecificity(pattern);
        kinds.set(pattern, specificity);
        return { pattern, specificity };
      });
      for (const g of globs) {
        listOf(this.globDocs, g.pattern).push(doc);
      }
      const typeName = fileTypeName(skill.name);
      if (typeName !== '') listOf(this.typeDocs, typeName).push(doc);
      return { id: record.id, record, skill, keywords, globs };
    });
    this.averageLength = n > 0 ? totalLength / n : 0;
    if (params.descriptionWeight > 0) {
      for (const [doc, f] of fields.entries()) {
        const terms = [...f.name, ...f.keywords, ...f.description];
        const tf = new Map<string, number>();
        for (const t of [...terms, ...bigrams(f.description)]) tf.set(t, (tf.get(t) ?? 0) + 1);
        for (const [t, count] of tf) listOf(this.descriptionPostings, t).push(doc, count);
        this.descriptionLengths.push(terms.length);
      }
      this.descriptionAverage = this.descriptionLengths.reduce((a, b) => a + b, 0) / Math.max(1, n) || 1;
    }
    if (params.associationWeight > 0 && params.associationCount > 0) {
      this.streams = fields.map((f) => [...f.description, ...f.headings, ...f.body]);
      for (const [doc, stream] of this.streams.entries())
        for (let i = 0; i < stream.length; i++) listOf(this.occurrences, stream[i]!).push(doc, i);
    }
    if (params.familyWeight > 0)
      for (const term of this.postings.keys()) if (!term.includes(' ')) listOf(this.families, stem(term)).push(term);
    if (params.nameRarityFull > 0) this.weighNameKeywords();
  }

  /**
   * A name used as a keyword says as much as its words are rare in the library: `stripe` or
   * `fastapi` (a skill or two write it) is the topic itself, while `requests`, `click` or `express`
   * are everyday words that a third of the library writes, and matching one is no sign that the
   * message is about that library. The name's strength is its rarity (ln(N / df) / ln N, df the
   * skills whose text has the word, or the rarest word pair of a longer name) over
   * `nameRarityFull`, at most 1.
   */
  private weighNameKeywords(): void {
    const n = this.idfSkills;
    if (n <= 1) return;
    for (const entry of this.entries) {
      for (const kw of entry.keywords) {
        if (kw.source !== 'name') continue;
        const terms = lexicalTerms(kw.compiled.keyword);
        const keys = terms.length === 1 ? terms : bigrams(terms);
        if (keys.length === 0) continue;
        const df = Math.max(1, Math.min(...keys.map((key) => this.postings.get(key)?.df ?? 1)));
        const rarity = Math.log(n / df) / Math.log(n);
        kw.strength = round(kw.strength * Math.min(1, Math.max(0, rarity / this.params.nameRarityFull)));
      }
    }
  }

  /**
   * The words the library writes near `term`: within `associationWindow` terms of it, in at least
   * two skills (one skill's idiom is not the library's), at least `associationLift` times as often
   * as the word's share of skills, the `associationCount` most frequent, each with P(word near term).
   * Computed on first use and kept (at most ASSOCIATE_CACHE terms; the cache starts over when full).
   */
  private associates(term: string): [string, number][] {
    const known = this.associateCache.get(term);
    if (known) return known;
    const occurrences = this.occurrences.get(term) ?? [];
    const window = this.params.associationWindow;
    const near = new Map<string, { count: number; docs: Set<number> }>();
    for (let j = 0; j < occurrences.length; j += 2) {
      const doc = occurrences[j]!;
      const at = occurrences[j + 1]!;
      const stream = this.streams[doc]!;
      const seen = new Set<string>();
      for (let k = Math.max(0, at - window); k < Math.min(stream.length, at + window + 1); k++) {
        const word = stream[k]!;
        if (word === term || seen.has(word)) continue;
        seen.add(word);
        let entry = near.get(word);
        if (!entry) {
          entry = { count: 0, docs: new Set() };
          near.set(word, entry);
        }
        entry.count++;
        entry.docs.add(doc);
      }
    }
    const total = occurrences.length / 2;
    const out: [string, number][] = [];
    for (const [word, { count, docs }] of near) {
      if (docs.size < 2) continue;
      const df = this.postings.get(word)?.df ?? 0;
      if (df === 0) continue;
      const p = count / total;
      if (p / (df / this.entries.length) < this.params.associationLift) continue;
      out.push([word, p]);
    }
    out.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const top = out.slice(0, this.params.associationCount);
    if (this.associateCache.size >= ASSOCIATE_CACHE) this.associateCache.clear();
    this.associateCache.set(term, top);
    return top;
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The number of skills idf is computed over: the library's, or
   * `idfPriorSkills` when the library is smaller. In 14 skills a word that 5
   * share would count for less than half a distinctive word, though 5 of 14 is
   * a small sample and the word may be specific in any other library; the
   * prior counts the missing skills as ones without the word.
   */
  private get idfSkills(): number {
    return Math.max(this.entries.length, this.params.idfPriorSkills);
  }

  /**
   * The signals of every skill for a message: the query vector (or none for
   * an empty message), its words, and the files in context. Skills where no
   * signal fired are left out.
   */
  signals(
    message: string,
    vector: Float32Array | undefined,
    paths: readonly string[],
    scoring: IndexScoring,
  ): RawSignals[] {
    const n = this.entries.length;
    const dense = this.cosines(vector);
    // Each sentence and each path apart: word pairs are phrases, never made across a full stop or
    // from the message's last word and a path's first (`batch docs`), nor from two paths.
    const query = queryTerms([...sentences(message), ...paths.map(pathWords)]);
    const bm25 = this.bm25(query);
    const described = this.params.descriptionWeight > 0 ? this.descriptionScores(query.phrases) : undefined;
    const keywordHits = this.keywordHits(messageTerms(message), message);
    const globHits = this.globHits(paths);
    const out: RawSignals[] = [];
    const { range, weights } = scoring;
    const maxWeight = Math.max(weights.dense, weights.keyword, Number.MIN_VALUE);
    const idfMax = idf(this.idfSkills, 1);
    for (let doc = 0; doc < n; doc++) {
      const entry = this.entries[doc]!;
      const signals: SkillSignals = {};
      const cosine = dense ? dense[doc]! : 0;
      const confidence = clamp01((cosine - range.floor) / (range.ceiling - range.floor));
      const raw = bm25.get(doc) ?? 0;
      const { lexicalFloor, lexicalScale } = this.params;
      // What the name and description alone say, joined by noisy-OR: a long body no longer dilutes them.
      const lexical =
        1 -
        (1 - lexicalRelevance(raw, idfMax, lexicalFloor, lexicalScale)) *
          (1 - lexicalRelevance(described?.get(doc) ?? 0, idfMax, lexicalFloor, lexicalScale)) **
            this.params.descriptionWeight;
      // Noisy-OR of the two absolute relevances: either alone can carry the signal, both reinforce.
      const semantic =
        1 - (1 - confidence) ** (weights.dense / maxWeight) * (1 - lexical) ** (weights.keyword / maxWeight);
      if (semantic > 0) {
        signals.semantic = {
          score: round(semantic),
          cosine: round(cosine),
          dense: round(confidence),
          lexical: round(lexical),
        };
      }
      let declared = false;
      const kw = keywordHits.get(doc);
      if (kw) {
        signals.keyword = { score: kw.strength, matched: kw.matched, source: kw.declared ? 'declared' : 'derived' };
        declared ||= kw.declared;
      }
      const glob = globHits.get(doc);
      if (glob) {
        signals.glob = glob;
        // A path-specific glob, or an extension few skills claim, is the author's declaration.
        declared ||= glob.score >= GLOB_SPECIFICITY_SCORE.extension;
      }
      if (signals.semantic || signals.keyword || signals.glob || entry.skill.alwaysApply)
        out.push({ entry, signals, declared });
    }
    return out;
  }

  /**
   * A raw relevance of every skill to a message, for ordering skills no signal
   * activates (the catalog): cosine plus BM25 in units of one distinctive word.
   */
  relevance(message: string, vector: Float32Array | undefined): Float64Array {
    const out = new Float64Array(this.entries.length);
    const dense = this.cosines(vector);
    const idfMax = idf(this.idfSkills, 1) || 1;
    for (const [doc, score] of this.bm25(queryTerms(sentences(message)))) out[doc] = score / idfMax;
    if (dense) for (let doc = 0; doc < out.length; doc++) out[doc]! += dense[doc]!;
    return out;
  }

  /** Cosine of the message with every skill, over the message vector's non-zero dimensions only. */
  private cosines(vector: Float32Array | undefined): Float32Array | undefined {
    if (!vector) return undefined;
    const dim = this.dimension;
    const nonZero: number[] = [];
    let norm = 0;
    for (let i = 0; i < dim; i++) {
      const x = vector[i]!;
      if (x !== 0) {
        nonZero.push(i);
        norm += x * x;
      }
    }
    const out = new Float32Array(this.entries.length);
    if (norm === 0) return out;
    norm = Math.sqrt(norm);
    const values = nonZero.map((i) => vector[i]!);
    const vectors = this.vectors;
    for (let doc = 0; doc < out.length; doc++) {
      const base = doc * dim;
      let dot = 0;
      for (let j = 0; j < nonZero.length; j++) dot += values[j]! * vectors[base + nonZero[j]!]!;
      const skillNorm = this.norms[doc]!;
      out[doc] = skillNorm > 0 ? dot / (norm * skillNorm) : 0;
    }
    return out;
  }

  /**
   * BM25 of the message's words and word pairs over each skill's name, keywords and description
   * alone, normalised by their own length (idf is the library's): the fields every library writes
   * to say when a skill applies, scored without the body's length.
   */
  private descriptionScores(query: Iterable<string>): Map<number, number> {
    const scores = new Map<number, number>();
    const { k1, b } = this.params.bm25;
    for (const term of query) {
      const list = this.descriptionPostings.get(term);
      const df = this.postings.get(term)?.df ?? 0;
      if (!list || df === 0) continue;
      const weight = idf(this.idfSkills, df) * (term.includes(' ') ? this.params.bigramWeight : 1);
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i]!;
        const tf = list[i + 1]!;
        const norm = k1 * (1 - b + (b * this.descriptionLengths[doc]!) / this.descriptionAverage);
        scores.set(doc, (scores.get(doc) ?? 0) + (weight * tf * (k1 + 1)) / (tf + norm));
      }
    }
    return scores;
  }

  private bm25({ terms, phrases }: { terms: readonly string[]; phrases: ReadonlySet<string> }): Map<number, number> {
    const scores = new Map<number, number>();
    const { k1, b } = this.params.bm25;
    const query = new Map<string, number>();
    for (const term of phrases) query.set(term, 1);
    // A message word no skill writes reaches the forms of its family the library does write, for part
    // of a word: "concurrently" meets `concurrent`, "validator" meets `validate`, each with its own idf.
    // Only such words: expanding every word let common families ("project") raise unrelated skills.
    const family = this.params.familyWeight;
    if (family > 0)
      for (const term of terms) {
        if (this.postings.has(term)) continue;
        for (const form of this.families.get(stem(term)) ?? []) if (!query.has(form)) query.set(form, family);
      }
    // A message word the library writes brings the words the library writes near it, for the skills
    // without the word itself: a bridge to a skill that says it otherwise, not a second count for the
    // skills that have it (counted twice, a stray "temperature" made an LLM rule relevant to boiling water).
    const bridges = new Map<string, { share: number; from: Set<number>[] }>();
    const association = this.params.associationWeight;
    if (association > 0 && this.streams.length > 0)
      for (const term of terms) {
        const list = this.postings.get(term);
        // A word a large share of the library writes is everyday there: its neighbours are everything, and it
        // can bridge to few skills (not to the ones that have it). Skipping it saves most of the cost.
        if (!list || list.df < 2 || list.df > this.entries.length * this.params.associationMaxShare) continue;
        let has: Set<number> | undefined;
        for (const [word, p] of this.associates(term)) {
          if (query.has(word)) continue;
          has ??= new Set(list.docs);
          const bridge = bridges.get(word) ?? { share: 0, from: [] };
          bridge.share = Math.max(bridge.share, association * p);
          bridge.from.push(has);
          bridges.set(word, bridge);
        }
      }
    for (const [term, share, from] of [
      ...[...query].map(([t, s]) => [t, s, undefined] as const),
      ...[...bridges].map(([t, b]) => [t, b.share, b.from] as const),
    ]) {
      const list = this.postings.get(term);
      if (!list) continue;
      if (list.df === 0) continue;
      const weight = share * idf(this.idfSkills, list.df);
      for (let i = 0; i < list.docs.length; i++) {
        const doc = list.docs[i]!;
        if (from?.some((has) => has.has(doc))) continue;
        const tf = list.tf[i]!;
        const norm = k1 * (1 - b + (b * this.lengths[doc]!) / (this.averageLength || 1));
        scores.set(doc, (scores.get(doc) ?? 0) + (weight * tf * (k1 + 1)) / (tf + norm));
      }
    }
    return scores;
  }

  private keywordHits(
    terms: readonly MatchTerm[],
    message: string,
  ): Map<number, { strength: number; matched: string[]; declared: boolean }> {
    const hits = new Map<number, { strength: number; matched: string[]; declared: boolean }>();
    const tried = new Set<string>();
    const record = (doc: number, k: number) => {
      const key = `${doc}:${k}`;
      if (tried.has(key)) return;
      tried.add(key);
      const kw = this.entries[doc]!.keywords[k]!;
      if (matchKeywords(terms, [kw.compiled], message).length === 0) return;
      const hit = hits.get(doc) ?? { strength: 0, matched: [], declared: false };
      hit.strength = Math.max(hit.strength, kw.strength);
      hit.matched.push(kw.compiled.keyword);
      hit.declared ||= kw.source === 'declared';
      hits.set(doc, hit);
    };
    for (const term of terms) for (const { doc, k } of this.keywordsByStem.get(term.stem) ?? []) record(doc, k);
    for (const { doc, k } of this.literalKeywords) record(doc, k);
    return hits;
  }

  private globHits(paths: readonly string[]): Map<number, NonNullable<SkillSignals['glob']>> {
    const hits = new Map<number, NonNullable<SkillSignals['glob']>>();
    if (paths.length === 0) return hits;
    const match = this.matcher.forPaths(paths);
    for (const [pattern, docs] of this.globDocs) {
      const hit = match([pattern]);
      if (hit.paths.length === 0) continue;
      for (const doc of docs) {
        const specificity = this.entries[doc]!.globs.find((g) => g.pattern === pattern)!.specificity;
        const glob = hits.get(doc) ?? { score: 0, paths: [], patterns: [], matches: [] };
        glob.score = Math.max(glob.score, GLOB_SPECIFICITY_SCORE[specificity]);
        glob.patterns.push(pattern);
        for (const path of hit.paths) {
          if (!glob.paths.includes(path)) glob.paths.push(path);
          glob.matches!.push({ path, pattern, specificity });
        }
        hits.set(doc, glob);
      }
    }
    // A skill named for a file's type (`bash` for deploy.sh, `pdf` for invoice.pdf) claims it as an
    // extension-only glob would: authors often leave such a rule's globs at `**/*`, or an Agent Skill
    // has none, and the file is then the best evidence there is.
    for (const path of paths) {
      for (const name of fileTypeNames(path)) {
        for (const doc of this.typeDocs.get(name) ?? []) {
          const glob = hits.get(doc) ?? { score: 0, paths: [], patterns: [], matches: [] };
          if (glob.matches!.some((m) => m.path === path && m.specificity !== 'catch-all')) continue;
          glob.score = Math.max(glob.score, GLOB_SPECIFICITY_SCORE.extension);
          if (!glob.paths.includes(path)) glob.paths.push(path);
          glob.matches!.push({ path, pattern: this.entries[doc]!.skill.name, specificity: 'extension', byName: true });
          hits.set(doc, glob);
        }
      }
    }
    // A file many skills' globs claim (`*.py` in a Python library) says less than one few claim.
    const n = this.entries.length;
    const claimed = [...hits.values()].filter((g) => g.score > 0).length;
    const rarity =
      claimed > 0 && n > 1 ? Math.min(1, Math.log(n / claimed) / Math.log(n) / this.params.globRarityFull) : 1;
    for (const glob of hits.values()) glob.score = round(glob.score * (glob.score >= 1 ? 1 : rarity));
    return hits;
  }
}
