import { lstat, open, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { MAX_SKILL_CONTENT_LENGTH } from './validate';

/** Bytes read from one skill file at most (four times the content limit: UTF-8 and frontmatter). */
export const MAX_SKILL_FILE_BYTES = 4 * MAX_SKILL_CONTENT_LENGTH;

export type SkillFileText = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Reads a skill file as text, refusing what cannot be one: a file reached
 * through a linked directory that points back up its own tree (such as
 * `.claude/rules/up -> ..`, which would turn every Markdown file above it
 * into a rule), a file over the size limit, and binary content (a NUL byte
 * or bytes that are not UTF-8).
 */
export async function readSkillFile(path: string, root: string): Promise<SkillFileText> {
  const upLink = await linkUp(path, root);
  if (upLink) {
    return {
      ok: false,
      reason: `is reached through ${upLink.link}, a link up to ${upLink.target}; links that point up their own tree are not followed (link the skill folder itself)`,
    };
  }
  const info = await stat(path);
  if (info.size > MAX_SKILL_FILE_BYTES) {
    // A database or an archive given as a skill is binary, not too long: "split it" fits only long text.
    const head = decodeText(await readHead(path, BINARY_SNIFF_BYTES), false);
    if (!head.ok) return head;
    return {
      ok: false,
      reason: `is ${info.size} bytes; the limit for a skill file is ${MAX_SKILL_FILE_BYTES}. Split it into smaller skills`,
    };
  }
  return decodeText(await readFile(path), true);
}

/** Bytes of a file over the size limit looked at for binary content. */
const BINARY_SNIFF_BYTES = 8192;

/**
 * `bytes` as UTF-8 text, or why they are not text (a NUL byte, or bytes that
 * are not UTF-8). `complete`: false when `bytes` is the head of a longer file,
 * whose last character may be cut.
 */
function decodeText(bytes: Uint8Array, complete: boolean): SkillFileText {
  const nul = bytes.indexOf(0);
  if (nul >= 0)
    return { ok: false, reason: `is not a text file (NUL byte at offset ${nul}); a skill is UTF-8 Markdown` };
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete }) };
  } catch {
    return { ok: false, reason: 'is not a text file (its bytes are not UTF-8); a skill is UTF-8 Markdown' };
  }
}

async function readHead(path: string, length: number): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const buffer = new Uint8Array(length);
    const { bytesRead } = await file.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The first linked directory between `root` and `path` whose target contains the link itself. */
async function linkUp(path: string, root: string): Promise<{ link: string; target: string } | undefined> {
  const base = resolve(root);
  const parts = relative(base, resolve(dirname(path)))
    .split(sep)
    .filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return undefined; // a file given directly, outside any tree walk
  let current = base;
  for (const part of parts) {
    current = resolve(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (!info?.isSymbolicLink()) continue;
    const target = await realpath(current).catch(() => undefined);
    const parent = await realpath(dirname(current)).catch(() => undefined);
    if (target && parent && (parent === target || parent.startsWith(target.endsWith(sep) ? target : target + sep))) {
      return { link: relative(base, current), target };
    }
  }
  return undefined;
}
