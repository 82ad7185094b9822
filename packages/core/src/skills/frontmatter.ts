import { isMap, parseDocument } from 'yaml';

/** Frontmatter longer than this is refused before YAML sees it. */
export const MAX_FRONTMATTER_CHARS = 64 * 1024;
/** Aliases a frontmatter may use (an alias bomb needs thousands; real files use none). */
export const MAX_FRONTMATTER_ALIASES = 100;

export type FrontmatterResult =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; reason: string /** 1-based line in the file. */; line?: number };

/**
 * Parses YAML frontmatter with bounded cost: a size limit before parsing and
 * an alias limit while building values, so a 500-byte alias bomb is one
 * error instead of gigabytes of heap. YAML 1.1, as gray-matter read it
 * (dates become Date, `yes` a boolean). `firstLine` is the file line of the
 * YAML's first line, for the line numbers in errors.
 */
export function parseFrontmatter(yaml: string, firstLine: number): FrontmatterResult {
  if (yaml.length > MAX_FRONTMATTER_CHARS) {
    return {
      ok: false,
      reason: `the frontmatter is ${yaml.length} characters; the limit is ${MAX_FRONTMATTER_CHARS}. Move long text into the body`,
      line: firstLine,
    };
  }
  const doc = parseDocument(yaml, { version: '1.1', uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line;
    return {
      ok: false,
      reason: `invalid YAML frontmatter: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
      ...(line !== undefined ? { line: firstLine + line - 1 } : {}),
    };
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    return { ok: false, reason: 'the frontmatter must be a YAML mapping of key: value lines', line: firstLine };
  }
  try {
    const data = doc.toJS({ maxAliasCount: MAX_FRONTMATTER_ALIASES }) as Record<string, unknown> | null;
    return { ok: true, data: data ?? {} };
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      return {
        ok: false,
        reason: `the frontmatter expands YAML aliases beyond the limit of ${MAX_FRONTMATTER_ALIASES} (an alias bomb?); write the values out`,
        line: firstLine,
      };
    }
    return { ok: false, reason: `invalid YAML frontmatter: ${(error as Error).message}`, line: firstLine };
  }
}
