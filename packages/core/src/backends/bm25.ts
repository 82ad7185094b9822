import { tokenize } from '../text';

/**
 * BM25 saturation and length normalisation. Memories are short (a sentence or
 * two), so term frequency and length say little: Anserini's defaults
 * (k1 = 0.9, b = 0.4) beat Lucene's (1.2, 0.75) by 2.5 points of R@10 on the
 * LoCoMo dev split (docs/benchmarks.md).
 */
export const BM25_K1 = 0.9;
export const BM25_B = 0.4;

/**
 * Weight of a record's `context` against its `text` in keyword relevance: a
 * context term counts as this fraction of an occurrence in the text (BM25F's
 * field weight). Below 1 so that a match in the context alone ranks below the
 * same match in the text; see docs/benchmarks.md for how it was chosen.
 * Every backend uses it (FTS5 column weights, Qdrant sparse values).
 */
export const CONTEXT_WEIGHT = 0.3;

/**
 * An incremental BM25 index over the core tokenizer. Used by the in-memory
 * backend; idf is computed over the documents the caller's filter admits, as
 * a per-tenant index would.
 */
export class Bm25Index {
  private readonly docs = new Map<string, { tf: Map<string, number>; length: number }>();
  private readonly postings = new Map<string, Set<string>>();

  constructor(
    private readonly params: { k1: number; b: number; contextWeight?: number } = { k1: BM25_K1, b: BM25_B },
  ) {}

  /**
   * Indexes a document's text and optional context as one BM25F document: a
   * context occurrence adds `contextWeight` to a term's frequency, and the
   * length is both fields' terms (as FTS5's bm25() with column weights does).
   * A document without terms (e.g. a history record) is not a document, as in FTS5.
   */
  set(id: string, text: string, context?: string): void {
    this.remove(id);
    const terms = tokenize(text);
    const contextTerms = context ? tokenize(context) : [];
    if (terms.length + contextTerms.length === 0) return;
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    const weight = this.params.contextWeight ?? CONTEXT_WEIGHT;
    for (const t of contextTerms) tf.set(t, (tf.get(t) ?? 0) + weight);
    this.docs.set(id, { tf, length: terms.length + contextTerms.length });
    for (const t of tf.keys()) {
      const set = this.postings.get(t);
      if (set) set.add(id);
      else this.postings.set(t, new Set([id]));
    }
  }

  remove(id: string): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    for (const t of doc.tf.keys()) {
      const set = this.postings.get(t);
      set?.delete(id);
      if (set && set.size === 0) this.postings.delete(t);
    }
    this.docs.delete(id);
  }

  /** Scores of every admitted document that shares a term with the query. */
  search(query: string, admit: (id: string) => boolean): Map<string, number> {
    const scores = new Map<string, number>();
    const postings: [string, Set<string>][] = [];
    for (const term of new Set(tokenize(query))) {
      const posting = this.postings.get(term);
      if (posting) postings.push([term, posting]);
    }
    if (postings.length === 0) return scores;
    // Corpus statistics over the admitted documents only; admit is asked once per document.
    const candidates = new Set<string>();
    for (const [, posting] of postings) for (const id of posting) candidates.add(id);
    const admitted = new Set<string>();
    let n = 0;
    let totalLength = 0;
    for (const [id, doc] of this.docs) {
      if (!admit(id)) continue;
      n++;
      totalLength += doc.length;
      if (candidates.has(id)) admitted.add(id);
    }
    if (admitted.size === 0) return scores;
    const avgdl = totalLength / n;
    const { k1, b } = this.params;
    for (const [term, posting] of postings) {
      let df = 0;
      for (const id of posting) if (admitted.has(id)) df++;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const id of posting) {
        if (!admitted.has(id)) continue;
        const doc = this.docs.get(id)!;
        const f = doc.tf.get(term)!;
        const s = (idf * (f * (k1 + 1))) / (f + k1 * (1 - b + (b * doc.length) / avgdl));
        scores.set(id, (scores.get(id) ?? 0) + s);
      }
    }
    return scores;
  }
}
