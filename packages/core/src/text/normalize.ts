import { hash } from 'node:crypto';

/** Whitespace the collapse changes: any other than a space, or two spaces in a row. */
const UNCOLLAPSED = /[^\S ]| {2}/;

/**
 * Anything but printable ASCII, or two spaces in a row: text without any is its own NFKC form and has
 * no whitespace to collapse.
 */
const NOT_PLAIN = /[^\x20-\x7e]| {2}/;

/** Content as compared for duplicates: Unicode NFKC, lower case, collapsed whitespace, trimmed. */
export function normalizeContent(content: string): string {
  // Most contents are plain ASCII: one test instead of NFKC and the whitespace test (~half the work).
  if (!NOT_PLAIN.test(content)) return content.toLowerCase().trim();
  const folded = content.normalize('NFKC').toLowerCase();
  // Most contents have single spaces only: the replace would copy them unchanged.
  return (UNCOLLAPSED.test(folded) ? folded.replace(/\s+/g, ' ') : folded).trim();
}

/** sha256 (hex) of the normalised content. One-shot `hash`: a `createHash` object per call cost ~1 us more. */
export function contentHash(content: string): string {
  return hash('sha256', normalizeContent(content), 'hex');
}
