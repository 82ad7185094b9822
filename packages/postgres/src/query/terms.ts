import { tokenize } from '@agentmem/core';

/** Longer terms are not indexed (a tsvector lexeme holds at most 2 KiB; no real word comes close). */
const MAX_TERM_BYTES = 512;
/** tsvector positions stop at 16383 (later occurrences share the last one) and a lexeme keeps at most 256. */
const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_TERM = 256;

function quote(term: string): string {
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function indexable(term: string): boolean {
  return Buffer.byteLength(term) <= MAX_TERM_BYTES;
}

/**
 * The keyword terms of a record as a tsvector literal with positions, built
 * with core's tokenizer (stop words dropped, Porter stems) rather than a
 * server text search configuration: the same terms as the in-memory BM25,
 * the SQLite FTS5 porter tokenizer and the Qdrant sparse vectors, whatever
 * the server's locale and configurations. Content positions are weighted A,
 * the context's (after them) C, so BM25 counts each field's occurrences
 * apart. `count` and `contextCount` are the field lengths BM25 normalises by.
 */
export function termsVector(text: string, context = ''): { literal: string; count: number; contextCount: number } {
  const positions = new Map<string, string[]>();
  let at = 0;
  const add = (source: string, weight: 'A' | 'C'): number => {
    let count = 0;
    for (const term of tokenize(source)) {
      if (!indexable(term)) continue;
      count++;
      at++;
      const position = `${Math.min(at, MAX_POSITION)}${weight}`;
      const list = positions.get(term);
      if (list === undefined) positions.set(term, [position]);
      else if (list.length < MAX_POSITIONS_PER_TERM && list[list.length - 1] !== position) list.push(position);
    }
    return count;
  };
  const count = add(text, 'A');
  const contextCount = context === '' ? 0 : add(context, 'C');
  const literal = [...positions].map(([term, list]) => `${quote(term)}:${list.join(',')}`).join(' ');
  return { literal, count, contextCount };
}

/** The distinct query terms, and a tsquery literal that matches any of them; undefined when no term is left. */
export function termsQuery(text: string): { terms: string[]; literal: string } | undefined {
  const terms = [...new Set(tokenize(text))].filter(indexable);
  if (terms.length === 0) return undefined;
  return { terms, literal: terms.map(quote).join(' | ') };
}
