import { keywordTerms } from '../text/keyword-terms';

/**
 * BM25 saturation and length normalisation. Memories are short (a sentence or
 * two), so term frequency and length say little: k1 = 0.6, b = 0.2 beat
 * Lucene's (1.2, 0.75) by 2.6 points of R@10 on the LoCoMo dev split, and
 * every leave-one-conversation-out fold picks them (docs/benchmarks.md).
 */
export const BM25_K1 = 0.6;
export const BM25_B = 0.2;
/** Length normalisation of the context field (longer and more uneven than content: normalised more). */
export const BM25_B_CONTEXT = 0.4;

/**
 * Weight of a record's `context` against its `text` in keyword relevance: a
 * context term counts as this fraction of an occurrence in the text (BM25F's
 * field weight). Below 1 so that a match in the context alone ranks below the
 * same match in the text; chosen by leave-one-conversation-out cross-validation
 * on LoCoMo (docs/benchmarks.md). Every backend uses it (FTS5 column weights,
 * Qdrant sparse values).
 */
export const CONTEXT_WEIGHT = 0.35;

interface Doc {
  tf: Map<string, number>;
  length: number;
  contextTf?: Map<string, number>;
  contextLength: number;
}

function termFrequencies(terms: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

/**
 * The exhaustive BM25F reference: every match scored, nothing pruned. The
 * backends search `KeywordIndex`, which must rank exactly as this does; idf is computed over the documents the caller's filter admits, as
 * a per-tenant index would. A document may have a second field, its context,
 * scored as BM25F (Robertson & Zaragoza): per field length normalisation,
 * the context's frequency weighted by `contextWeight`, one saturation.
 */
export class Bm25Index {
  private readonly docs = new Map<string, Doc>();
  private readonly postings = new Map<string, Set<string>>();

  constructor(
    private readonly params: { k1: number; b: number; contextB?: number; contextWeight?: number } = {
      k1: BM25_K1,
      b: BM25_B,
    },
  ) {}

  /** Indexes a document's text and optional context; one without terms (e.g. a history record) is not a document, as in FTS5. */
  set(id: string, text: string, context?: string): void {
    this.remove(id);
    const terms = keywordTerms(text);
    const contextTerms = context ? keywordTerms(context) : [];
    if (terms.length + contextTerms.length === 0) return;
    const doc: Doc = { tf: termFrequencies(terms), length: terms.length, contextLength: contextTerms.length };
    if (contextTerms.length > 0) doc.contextTf = termFrequencies(contextTerms);
    this.docs.set(id, doc);
    for (const t of new Set([...terms, ...contextTerms])) {
      const set = this.postings.get(t);
      if (set) set.add(id);
      else this.postings.set(t, new Set([id]));
    }
  }

  remove(id: string): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    for (const t of new Set([...doc.tf.keys(), ...(doc.contextTf?.keys() ?? [])])) {
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
    for (const term of new Set(keywordTerms(query))) {
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
    let totalContextLength = 0;
    for (const [id, doc] of this.docs) {
      if (!admit(id)) continue;
      n++;
      totalLength += doc.length;
      totalContextLength += doc.contextLength;
      if (candidates.has(id)) admitted.add(id);
    }
    if (admitted.size === 0) return scores;
    const avgdl = totalLength / n || 1;
    const avgContext = totalContextLength / n || 1;
    const { k1, b } = this.params;
    const weight = this.params.contextWeight ?? CONTEXT_WEIGHT;
    const bc = this.params.contextB ?? BM25_B_CONTEXT;
    for (const [term, posting] of postings) {
      let df = 0;
      for (const id of posting) if (admitted.has(id)) df++;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const id of posting) {
        if (!admitted.has(id)) continue;
        const doc = this.docs.get(id)!;
        let f = (doc.tf.get(term) ?? 0) / (1 - b + (b * doc.length) / avgdl);
        const fc = doc.contextTf?.get(term);
        if (fc) f += (weight * fc) / (1 - bc + (bc * doc.contextLength) / avgContext);
        scores.set(id, (scores.get(id) ?? 0) + (idf * f * (k1 + 1)) / (f + k1));
      }
    }
    return scores;
  }
}
