import { STOPWORDS } from '@agentmem/core';

const TERM = /[\p{L}\p{N}]+/gu;

/**
 * An FTS5 MATCH expression for free text: the OR of its distinct words, each
 * quoted so that FTS5 syntax in user text (AND, NOT, *, :, quotes) is never
 * interpreted. Stop words are dropped like core's BM25 does. Undefined when no
 * term is left (nothing can match).
 */
export function keywordMatchExpression(text: string): string | undefined {
  const terms = new Set<string>();
  for (const word of text.normalize('NFKC').toLowerCase().match(TERM) ?? []) {
    if (!STOPWORDS.has(word)) terms.add(word);
  }
  if (terms.size === 0) return undefined;
  return [...terms].map((t) => `"${t}"`).join(' OR ');
}
