// The text helpers of activation: how a skill's fields (name, headings, body, mentions) and a
// message (sentences, paths, word pairs) become BM25 terms, kept in one file so a skill and a
// message are read alike. ActivationIndex (activation-index.ts) builds its structures with them.
import { inflectionKey, tokenize } from '../text';
/**
 * For every skill, the words other skills write around its name: the library's own
 * "anchor text". A Cursor rule for FastAPI that says "use SQLAlchemy's selectinload
 * to avoid lazy loads" tells, in its author's words, what the `sqlalchemy` rule is
 * for; an Agent Skill's "REQUIRED SUB-SKILL: use superpowers:finishing-a-development-branch
 * when all tasks are done" says when that skill applies. Each mention (the longest name
 * that matches at a place, a skill's own text left out) brings the `window` terms either
 * side, weighed by how rare the name is in the library (ln(N / df) / ln N, df the skills
 * whose text mentions it, itself included): `react` or `python`, mentioned by a large part
 * of a code library, bring next to nothing.
 */
export function mentionContexts(
  fields: readonly {
    name: readonly string[];
    description: readonly string[];
    headings: readonly string[];
    body: readonly string[];
  }[],
  librarySize: number,
  window: number,
): Map<string, number>[] {
  const byFirst = new Map<string, number[]>();
  for (const [doc, f] of fields.entries()) if (f.name.length > 0) listOf(byFirst, f.name[0]!).push(doc);
  const found: { target: number; stream: readonly string[]; start: number; end: number }[] = [];
  const mentioners = fields.map(() => new Set<number>());
  for (const [doc, f] of fields.entries()) {
    const stream = [...f.description, ...f.headings, ...f.body];
    for (let i = 0; i < stream.length; i++) {
      let best = -1;
      for (const candidate of byFirst.get(stream[i]!) ?? []) {
        const name = fields[candidate]!.name;
        if (best >= 0 && name.length <= fields[best]!.name.length) continue;
        let j = 1;
        while (j < name.length && stream[i + j] === name[j]) j++;
        if (j === name.length) best = candidate;
      }
      if (best < 0) continue;
      const end = i + fields[best]!.name.length;
      if (best !== doc) {
        found.push({ target: best, stream, start: i, end });
        mentioners[best]!.add(doc);
      }
      i = end - 1;
    }
  }
  const out = fields.map(() => new Map<string, number>());
  const n = Math.max(librarySize, 2);
  for (const { target, stream, start, end } of found) {
    const rarity = Math.max(0, Math.log(n / (mentioners[target]!.size + 1)) / Math.log(n));
    if (rarity === 0) continue;
    const context = out[target]!;
    for (let k = Math.max(0, start - window); k < Math.min(stream.length, end + window); k++) {
      if (k >= start && k < end) continue;
      const t = stream[k]!;
      context.set(t, (context.get(t) ?? 0) + rarity);
    }
  }
  return out;
}

/**
 * The initials of a name of three or more parts (`django-rest-framework` → drf,
 * `test-driven-development` → tdd), or '' for a shorter name: people write a
 * long name's initials, and its own text may never spell them.
 */
export function nameAcronym(name: string): string {
  const parts = splitName(name)
    .split(/\s+/)
    .filter((p) => /^\p{L}/u.test(p));
  return parts.length >= 3 ? parts.map((p) => p[0]!.toLowerCase()).join('') : '';
}

/**
 * A name's parts as words, whatever the library's naming style: kebab, snake
 * and dotted (`django-rest-framework` → django rest framework) and camel or
 * Pascal case (`testDrivenDevelopment`, `TDDWorkflow` → TDD Workflow), which
 * the tokenizer would read as one word that no message says.
 */
export function splitName(name: string): string {
  return name
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/[-_/.]+/g, ' ');
}

/**
 * The content of a skill without its headings (a field of their own) and
 * without the string literals of its code blocks. Code counts (APIs and
 * identifiers say what a rule covers: `select_related`, `useQuery`), but the
 * strings in an example are made-up data: a LangChain rule's "Tell me a joke
 * about bears" and "25 degrees Celsius" made it the best match for jokes and
 * unit conversions.
 */
export function body(content: string): string {
  const out: string[] = [];
  let fenced = false;
  let block: string[] = [];
  for (const line of content.split('\n')) {
    if (FENCE.test(line)) {
      if (fenced) out.push(codeWithoutStrings(block.join('\n')));
      fenced = !fenced;
      block = [];
    } else if (fenced) block.push(line);
    else if (!HEADING.test(line)) out.push(line);
  }
  if (fenced) out.push(codeWithoutStrings(block.join('\n')));
  return out.join('\n');
}

/**
 * A code block without its string literals, Python's triple-quoted ones (docstrings, prompt
 * templates) across lines included: a docstring rule's `calculate_discount` example documents a
 * made-up discount, and its words made `pdoc` the first skill for "add the early-payment discount".
 */
function codeWithoutStrings(code: string): string {
  return code
    .replace(TRIPLE_QUOTED, ' ')
    .split('\n')
    .map((line) => line.replace(STRING_LITERAL, ' '))
    .join('\n');
}

const TRIPLE_QUOTED = /"""[\s\S]*?"""|'''[\s\S]*?'''/g;

const FENCE = /^\s*(```|~~~)/;
const HEADING = /^#{1,6}\s/;
/** A one-line string literal: double-quoted, single-quoted or a template (escapes inside kept whole). */
const STRING_LITERAL = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`/g;

/**
 * The BM25 terms of a text: its words without stop words, in American
 * spelling, reduced to their inflection stem (`stemInflection`: plurals,
 * -ed, -ing), not to Porter's full stem. Porter folds derivations together
 * ("projection", "projected" and "projects" all become `project`, a word of
 * half the library; "initialization" becomes `initi`), so a message's
 * distinctive word lost its idf. Only this index uses these terms: the
 * hashing embedder and the backends keep Porter's full stem.
 */
export function lexicalTerms(text: string): string[] {
  return tokenize(text, lexicalStem);
}

const lexicalStem = (word: string): string => inflectionKey(americanSpelling(word));

/**
 * A lower-case word in American spelling where British spelling differs by
 * a regular suffix: -ise/-isation → -ize/-ization ("initialised"), -yse →
 * -yze ("analyse"), -our → -or ("behaviour"), -ogue → -og ("catalogue"),
 * -tre → -ter ("centre"). Skills and messages go through the same mapping,
 * so a word it changes needlessly ("promise" → `promize`) still meets itself;
 * short words ("raise", "noise", "four", "hour") are left alone.
 */
export function americanSpelling(word: string): string {
  return word
    .replace(/^(\p{L}{3,})is(e|es|ed|ing|ation|ations|er|ers)$/u, '$1iz$2')
    .replace(/^(\p{L}{2,})ys(e|es|ed|ing)$/u, '$1yz$2')
    .replace(/^(\p{L}{3,})our(s|ed|ing|ite|ites|able|er|ers)?$/u, '$1or$2')
    .replace(/^(\p{L}{3,})ogue(s)?$/u, '$1og$2')
    .replace(/^(\p{L}{3,})tre(s)?$/u, '$1ter$2');
}

/**
 * Adjacent word pairs (`cold start`, `lazy load`, `n 1`): a pair says more
 * than its two words apart, which are everyday words ("cold", "start").
 */
export function bigrams(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < terms.length; i++) out.push(`${terms[i]} ${terms[i + 1]}`);
  return out;
}

/** The Markdown headings of a skill's content, outside code fences. */
export function headings(content: string): string {
  const out: string[] = [];
  let fenced = false;
  for (const line of content.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    else if (!fenced && HEADING.test(line)) out.push(line.replace(/^#+\s*/, ''));
  }
  return out.join('\n');
}

/**
 * The words of a path for lexical relevance, without its extension
 * (`src-tauri/src/main.rs` → src tauri src main). The file's type is the glob
 * signal's evidence; as a word, `py` or `ts` raised every rule whose text
 * names such files, whatever the message asked.
 */
export function pathWords(path: string): string {
  return path.replace(/\.[^./\\]+$/, '').replace(/[\\/._-]+/g, ' ');
}

/**
 * A message's sentences (split at a full stop, question or exclamation mark, semicolon or colon
 * followed by a space, and at line breaks): a word pair across them is no phrase. Commas stay
 * inside: splitting there too cost skills-dev one Agent-Skill message sent without its files.
 */
export function sentences(message: string): string[] {
  return message.split(/[.!?;:]+(?=\s|$)|\n+/);
}

/**
 * A message's terms (words, repeated as written) and its query terms (each word and each word
 * pair once), the pairs made within a segment (a sentence, a path).
 */
export function queryTerms(segments: readonly string[]): { terms: string[]; phrases: Set<string> } {
  const terms: string[] = [];
  const phrases = new Set<string>();
  for (const segment of segments) {
    const words = lexicalTerms(segment);
    terms.push(...words);
    for (const term of words) phrases.add(term);
    for (const pair of bigrams(words)) phrases.add(pair);
  }
  return { terms, phrases };
}

/** BM25 in units of one distinctive word's idf, above the floor, mapped onto 0..1. */
export function lexicalRelevance(raw: number, idfMax: number, floor: number, scale: number): number {
  return idfMax > 0 ? 1 - Math.exp(-Math.max(0, raw / idfMax - floor) / scale) : 0;
}

export function listOf<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export function clamp01(x: number): number {
  return Math.max(0, Math.min(x, 1));
}

export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
