import micromatch from 'micromatch';
import { stem, words } from '../text';

/**
 * Stemmed word sequence of a text: the unit keyword matching works on, so
 * that "containers" meets `container` while `pip` never meets "pipeline".
 */
export function stemmedWords(text: string): string[] {
  return words(text).map(stem);
}

/** A keyword compiled once: its stemmed words (a phrase when more than one). */
export interface CompiledKeyword {
  keyword: string;
  terms: string[];
}

export function compileKeywords(keywords: readonly string[]): CompiledKeyword[] {
  return keywords.map((keyword) => ({ keyword, terms: stemmedWords(keyword) })).filter((k) => k.terms.length > 0);
}

/** The keywords whose words occur in the message as whole words, in order (phrases contiguous). */
export function matchKeywords(messageTerms: readonly string[], keywords: readonly CompiledKeyword[]): string[] {
  const matched: string[] = [];
  for (const k of keywords) {
    const n = k.terms.length;
    for (let i = 0; i + n <= messageTerms.length; i++) {
      let hit = true;
      for (let j = 0; j < n; j++) {
        if (messageTerms[i + j] !== k.terms[j]) {
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

/** A skill's patterns compiled once into one matcher each. */
export interface CompiledGlobs {
  patterns: string[];
  matchers: ((path: string) => boolean)[];
}

export function compileGlobs(patterns: readonly string[]): CompiledGlobs {
  const valid = patterns.filter((p) => p.trim() !== '');
  return { patterns: valid, matchers: valid.map((p) => micromatch.matcher(p, GLOB_OPTIONS)) };
}

/** Which of the paths match which of the patterns (any form of the path). */
export function matchGlobs(
  paths: readonly { path: string; forms: readonly string[] }[],
  globs: CompiledGlobs,
): { paths: string[]; patterns: string[] } {
  const hitPaths = new Set<string>();
  const hitPatterns = new Set<string>();
  globs.matchers.forEach((isMatch, i) => {
    for (const p of paths) {
      if (p.forms.some((form) => isMatch(form))) {
        hitPaths.add(p.path);
        hitPatterns.add(globs.patterns[i]!);
      }
    }
  });
  return { paths: [...hitPaths], patterns: [...hitPatterns] };
}
