import micromatch from 'micromatch';
import { stem, words } from '../text';
import { FILE_EXTENSIONS, FILE_NAMES, FILE_TYPE_NAMES } from './file-names.generated';

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

const EXTENSIONS: ReadonlySet<string> = new Set(FILE_EXTENSIONS.split(' '));
const NAMES: ReadonlySet<string> = new Set(FILE_NAMES.split(' '));
/**
 * Endings that are file extensions in the lists but, in a chat message
 * without a folder, almost always end a domain name (`example.com`,
 * `claude.ai`, `shop.app`).
 */
const DOMAIN_ENDINGS = new Set(['com', 'org', 'net', 'io', 'ai', 'app', 'dev', 'co', 'info', 'edu', 'gov']);
/** Product names written like files: `Next.js`, `Node.js`, `Vue.js` (capitalised, no folder). */
const PRODUCT_NAME = /^[A-Z][A-Za-z0-9]*\.js$/;

/**
 * Whether a word of a message names a file: its last segment is a well-known
 * file name (Dockerfile, Makefile, `.env`) or ends in a known file
 * extension. Both lists come from GitHub Linguist and the MIME database
 * (`file-names.generated.ts`), so `main.py`, `schema.prisma` and
 * `invoice.pdf` are files while `shadcn/ui`, `client.messages.create`,
 * `claude.ai` and `Next.js` are not.
 */
export function looksLikeFile(token: string): boolean {
  const segments = token.replace(/\\/g, '/').split('/');
  const base = segments.at(-1)!;
  if (base === '') return false;
  // A known name without an extension is a file as the lists write it (Dockerfile, .bashrc), not a word ("root").
  if (NAMES.has(base) && /[A-Z.]/.test(base)) return true;
  const ext = extensionOf(base.toLowerCase());
  if (!/^[a-z]/.test(ext) || !EXTENSIONS.has(ext)) return false;
  // A folder before it makes a file of `docs/site.com`; a domain as the folder is a URL without a scheme.
  if (
    segments
      .slice(0, -1)
      .some((s) => DOMAIN_ENDINGS.has(s.slice(s.lastIndexOf('.') + 1).toLowerCase()) && s.includes('.'))
  )
    return false;
  if (segments.length === 1 && (DOMAIN_ENDINGS.has(ext) || PRODUCT_NAME.test(base))) return false;
  return true;
}

/**
 * Paths a message mentions: words that look like files (see `looksLikeFile`).
 * Surrounding quotes, backticks, brackets and sentence punctuation are
 * dropped; URLs are not files.
 */
export function pathsInMessage(message: string): string[] {
  const found = new Set<string>();
  for (const raw of message.split(/\s+/)) {
    const token = raw.replace(/^[("'`[{<]+/, '').replace(/[)"'`\]}>,;:!?.]+$/, '');
    if (token === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(token)) continue; // URLs are not files
    if (/^([a-z]\.)+[a-z]?$/i.test(token)) continue; // abbreviations: e.g, i.e
    if (looksLikeFile(token)) found.add(token);
  }
  return [...found];
}

/** What follows the last dot of a file name, or '' (none, a dotfile such as `.env`, or a trailing dot). */
function extensionOf(base: string): string {
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(dot + 1) : '';
}

/** Lower case, letters, digits, `+` and `#` only: how a skill's name and a language's names compare (`c-sharp` and C#'s `csharp`). */
export function fileTypeName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9+#]/g, '');
}

let typeNamesByKey: Map<string, string[]> | undefined;

/**
 * The names of a file's type: its extension (`pdf`), and the names and
 * aliases GitHub Linguist gives the language of that extension or file name
 * (`deploy.sh` → sh, shell, bash, zsh, …; `Dockerfile` → dockerfile,
 * containerfile). A skill called by one of them is about files like this one.
 */
export function fileTypeNames(path: string): string[] {
  if (!typeNamesByKey) {
    typeNamesByKey = new Map();
    for (const entry of FILE_TYPE_NAMES.split(' ')) {
      // Each key is in one entry: the generator groups keys by the names they give.
      const [names, keys] = entry.split(':') as [string, string];
      const list = names.split(',');
      for (const key of keys.split(',')) typeNamesByKey.set(key, list);
    }
  }
  const base = (path.replace(/\\/g, '/').split('/').at(-1) ?? '').toLowerCase();
  const ext = extensionOf(base);
  const out = new Set<string>();
  if (ext) {
    out.add(fileTypeName(ext));
    for (const n of typeNamesByKey.get(ext) ?? []) out.add(n);
  }
  for (const n of typeNamesByKey.get(`/${base}`) ?? []) out.add(n);
  out.delete('');
  return [...out];
}

/** How much a glob says about a file: nothing (matches every file), its extension only, or a place or name. */
export type GlobSpecificity = 'catch-all' | 'extension' | 'path';

/** Evidence of a matching glob by specificity: a catch-all is no evidence. */
export const GLOB_SPECIFICITY_SCORE: Record<GlobSpecificity, number> = { 'catch-all': 0, extension: 0.5, path: 1 };

const EXTENSION_ONLY = /^(?:\*\*\/)?\*\.(?:\{[^{}/*]+\}|[^{}/*]+)$/;

/**
 * The specificity of a pattern. A catch-all is recognised by what it
 * matches (a made-up file with a made-up extension in a made-up folder, and
 * one without an extension), so `**`, `**\/*`, `*` and `**\/*.*` are all
 * caught; `*.py` and `**\/*.{ts,tsx}` name an extension only.
 */
export function globSpecificity(pattern: string): GlobSpecificity {
  const p = pattern.trim().replace(/^\.\//, '');
  const compiled = compileGlob(p);
  // Tested like file paths are (every tail of the path), so `*` matches any file too.
  const isMatch = (path: string) => pathForms(path).some((form) => compiled(form));
  if (isMatch('zq9x/vk7w/qj3.zzqv') && (isMatch('zq9x/qj3') || isMatch('qj3.zzqv'))) return 'catch-all';
  return EXTENSION_ONLY.test(p) ? 'extension' : 'path';
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
