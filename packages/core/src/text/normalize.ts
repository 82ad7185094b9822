import { createHash } from 'node:crypto';

/** Content as compared for duplicates: Unicode NFKC, lower case, collapsed whitespace, trimmed. */
export function normalizeContent(content: string): string {
  return content.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** sha256 (hex) of the normalised content. */
export function contentHash(content: string): string {
  return createHash('sha256').update(normalizeContent(content)).digest('hex');
}
