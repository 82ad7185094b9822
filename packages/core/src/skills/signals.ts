import micromatch from 'micromatch';
import { stem, words } from '../text';

/**
 * Words whose trailing symbols the tokenizer drops although they name
 * something else: C++, C#, F#, g++. Keywords containing one match literally,
 * and such words take no part in the message's plain words (`c` does not
 * fire on "C++").
 */
const SYMBOL_WORD = /(?<![\p{L}\p{N}_])\p{L}[\p{L}\p{N}]*[+#]+/gu;

/** A word as keyword matching sees it: its stem and the bases it may be an inflection of. */
export interface MatchTerm {
  stem: string;
  bases: string[];
}

const INFLECTIONS = ['s', 'es', 'ed', 'd', 'ing'];

/**
 * The words a word may inflect: itself, and itself without a plural or verb
 * ending ("containers" → container, "staging" → stage, "libraries" →
 * library, "shipping" → ship).
 */
function basesOf(word: string): string[] {
  const out = new Set([word]);
  for (const suffix of INFLECTIONS) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 2) continue;
    const base = word.slice(0, -suffix.length);
    out.add(base);
    if (suffix === 'ed' || suffix === 'ing') {
      out.add(`${base}e`);
      const n = base.length;
      if (n >= 3 && base[n - 1] === base[n - 2]) out.add(base.slice(0, -1));
    }
    if (suffix === 'es' || suffix === 'ed') {
      if (base.endsWith('i')) out.add(`${base.slice(0, -1)}y`);
    }
  }
  return [...out];
}

/**
 * The word sequence keyword matching works on. Two words match when core's
 * stemmer agrees and one is an inflection of the other: "containers" meets
 * `container`, but neither "contains" (same Porter stem) nor "pipeline"
 * meets `container` or `pip`.
 */
export function matchTerms(text: string): MatchTerm[] {
  return words(text).map((w) => ({ stem: stem(w), bases: basesOf(w) }));
}

function sameWord(a: MatchTerm, b: MatchTerm): boolean {
  if (a.stem !== b.stem) return false;
  for (const base of a.bases) if (b.bases.includes(base)) return true;
  return false;
}

/** The words of a message for keyword matching, without its symbol words (C++, C#: see `SYMBOL_WORD`). */
export function messageTerms(message: string): MatchTerm[] {
  return matchTerms(message.replace(SYMBOL_WORD, ' '));
}

/** A keyword compiled once: its words (a phrase when more than one), or a literal pattern for symbol words. */
export interface CompiledKeyword {
  keyword: string;
  terms: MatchTerm[];
  /** For keywords with a symbol word (`c++`, `modern C#`): matched in the raw message, case-insensitively. */
  literal?: RegExp;
}

export function compileKeywords(keywords: readonly string[]): CompiledKeyword[] {
  return keywords
    .map((keyword): CompiledKeyword => {
      const text = keyword.trim();
      if (!new RegExp(SYMBOL_WORD.source, 'u').test(text)) return { keyword, terms: matchTerms(keyword) };
      const pattern = text.split(/\s+/).map(escapeRegExp).join('\\s+');
      // Whole words: nothing word-like before, no letter or further symbol after (C++17 is C++).
      return { keyword, terms: [], literal: new RegExp(`(?<![\\p{L}\\p{N}_])${pattern}(?![\\p{L}_+#])`, 'iu') };
    })
    .filter((k) => k.literal !== undefined || k.terms.length > 0);
}

/**
 * The keywords whose words occur in the message as whole words, in order
 * (phrases contiguous). Symbol-word keywords need the raw `message`.
 */
export function matchKeywords(
  messageTerms: readonly MatchTerm[],
  keywords: readonly CompiledKeyword[],
  message?: string,
): string[] {
  const matched: string[] = [];
  for (const k of keywords) {
    if (k.literal) {
      if (message !== undefined && k.literal.test(message)) matched.push(k.keyword);
      continue;
    }
    const n = k.terms.length;
    for (let i = 0; i + n <= messageTerms.length; i++) {
      let hit = true;
      for (let j = 0; j < n; j++) {
        if (!sameWord(messageTerms[i + j]!, k.terms[j]!)) {
          hit = false;
          break;
        }
      }
      if (hit) {
        matched.push(k.keyword);
        break;
      }
    }
  }
  return matched;
}

/** File names that mean a file without having an extension. */
const KNOWN_FILE_NAMES = new Set(
  [
    'Dockerfile',
    'Containerfile',
    'Makefile',
    'GNUmakefile',
    'Jenkinsfile',
    'Vagrantfile',
    'Procfile',
    'Gemfile',
    'Rakefile',
    'Brewfile',
    'Justfile',
    'Earthfile',
    'Tiltfile',
    'Caddyfile',
    'CODEOWNERS',
    'LICENSE',
  ].map((n) => n.toLowerCase()),
);

const EXTENSION = /\.[A-Za-z][A-Za-z0-9_-]{0,11}$/;

/**
 * Paths a message mentions: tokens with a `/`, a file extension (`main.py`,
 * `.env`) or a well-known extensionless name (Dockerfile, Makefile).
 * Surrounding quotes, backticks, brackets and sentence punctuation are dropped.
 */
export function pathsInMessage(message: string): string[] {
  const found = new Set<string>();
  for (const raw of message.split(/\s+/)) {
    const token = raw.replace(/^[("'`[{<]+/, '').replace(/[)"'`\]}>,;:!?.]+$/, '');
    if (token === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(token)) continue; // URLs are not files
    if (/^([a-z]\.)+[a-z]?$/i.test(token)) continue; // abbreviations: e.g, i.e
    const base = token.slice(token.lastIndexOf('/') + 1);
    const isPath =
      (token.includes('/') && /[A-Za-z0-9]/.test(token) && !/^\/+$/.test(token)) ||
      EXTENSION.test(token) ||
      KNOWN_FILE_NAMES.has(base.toLowerCase());
    if (isPath) found.add(token);
  }
  return [...found];
}

/**
 * The forms a path is matched in: the full path and every tail of it down to
 * the basename, so `src/**` matches `/home/me/repo/src/app.ts` and `*.py`
 * matches `src/app/main.py`.
 */
export function pathForms(path: string): string[] {
  const clean = path.replace(/\\/g, '/').replace(/^\.\//, '');
  const parts = clean.split('/').filter((p) => p !== '' && p !== '.');
  const forms = new Set<string>([clean]);
  for (let i = 0; i < parts.length; i++) forms.add(parts.slice(i).join('/'));
  return [...forms];
}

export const GLOB_OPTIONS = { dot: true, nocase: true } as const;

/**
 * Matches paths against glob patterns. Each pattern is compiled once, and
 * within one activation each pattern is tested once whatever the number of
 * skills sharing it (500 skills often share a handful of patterns).
 */
export class GlobMatcher {
  private readonly compiled = new Map<string, (path: string) => boolean>();

  /** A per-message matcher: which of `paths` each pattern matches (any form of the path). */
  forPaths(paths: readonly string[]): (patterns: readonly string[]) => { paths: string[]; patterns: string[] } {
    const targets = paths.map((path) => ({ path, forms: pathForms(path) }));
    const memo = new Map<string, string[]>();
    const test = (pattern: string): string[] => {
      let hit = memo.get(pattern);
      if (hit === undefined) {
        let isMatch = this.compiled.get(pattern);
        if (!isMatch) {
          isMatch = compileGlob(pattern);
          this.compiled.set(pattern, isMatch);
        }
        hit = targets.filter((t) => t.forms.some((form) => isMatch!(form))).map((t) => t.path);
        memo.set(pattern, hit);
      }
      return hit;
    };
    return (patterns) => {
      const hitPaths = new Set<string>();
      const hitPatterns: string[] = [];
      for (const pattern of patterns) {
        const hit = test(pattern);
        if (hit.length === 0) continue;
        hitPatterns.push(pattern);
        for (const p of hit) hitPaths.add(p);
      }
      return { paths: [...hitPaths], patterns: hitPatterns };
    };
  }
}

/** A pattern micromatch refuses matches nothing, rather than failing every activation. */
function compileGlob(pattern: string): (path: string) => boolean {
  try {
    return micromatch.matcher(pattern, GLOB_OPTIONS);
  } catch {
    return () => false;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
