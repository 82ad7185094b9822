// Every relative link of the README, docs/*.md and the packages' READMEs points to a file that exists, and every
// `#anchor` to a heading of the page it names (as GitHub makes anchors), so a reader never lands on a 404 or on
// the top of a long page; and a section named in prose or a comment (`docs/core.md, "Limits"`) is still on the page
// it names, so moving a section to another page means updating its mentions. Links to other sites are not fetched
// (tests run offline).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Lexer, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  const packages = readdirSync(join(ROOT, 'packages'))
    .map((p) => join('packages', p, 'README.md'))
    .filter((f) => existsSync(join(ROOT, f)));
  return ['README.md', ...docs, ...packages];
}

/** Every token of a document, nested ones too (links inside tables, lists and emphasis). */
function* walk(tokens: readonly Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    const t = token as Tokens.Generic;
    if (t.tokens) yield* walk(t.tokens);
    if (t.type === 'list') for (const item of (t as Tokens.List).items) yield* walk(item.tokens);
    if (t.type === 'table') {
      const table = t as Tokens.Table;
      for (const cell of [...table.header, ...table.rows.flat()]) yield* walk(cell.tokens);
    }
  }
}

const anchorsOf = new Map<string, Set<string>>();

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(file: string): Set<string> {
  const known = anchorsOf.get(file);
  if (known) return known;
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const token of walk(new Lexer().lex(readFileSync(file, 'utf8')))) {
    if (token.type !== 'heading') continue;
    const text = [...walk((token as Tokens.Heading).tokens)]
      .filter((t) => t.type === 'text' || t.type === 'codespan')
      .map((t) => (t as Tokens.Text).text)
      .join('');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  anchorsOf.set(file, out);
  return out;
}

interface BrokenLink {
  file: string;
  href: string;
  problem: string;
}

function brokenLinks(file: string): BrokenLink[] {
  const path = join(ROOT, file);
  const broken: BrokenLink[] = [];
  for (const token of walk(new Lexer().lex(readFileSync(path, 'utf8')))) {
    if (token.type !== 'link' && token.type !== 'image') continue;
    const href = (token as Tokens.Link).href;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto: ...
    const [target = '', anchor] = href.split('#');
    const resolved = target === '' ? path : join(dirname(path), decodeURIComponent(target));
    if (!existsSync(resolved)) {
      broken.push({ file, href, problem: `no file ${relative(ROOT, resolved)}` });
      continue;
    }
    if (anchor && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
      broken.push({ file, href, problem: `no heading #${anchor} in ${relative(ROOT, resolved)}` });
    }
  }
  return broken;
}

/** Files that may name a docs page by path in prose or comments: the Markdown above, and the sources. */
function sourceFiles(): string[] {
  const roots = [
    'bench',
    'examples',
    'scripts',
    'test',
    ...readdirSync(join(ROOT, 'packages')).map((p) => join('packages', p, 'src')),
  ];
  return roots
    .filter((dir) => existsSync(join(ROOT, dir)))
    .flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|mjs)$/.test(f) && !f.includes('node_modules'))
        .map((f) => join(dir, f)),
    );
}

/** The lower-case starts a section can be named by: its headings, and its emphasised leads ("**Cost.**", "*Cost.*"). */
function sectionNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const headings = [...text.matchAll(/^#{1,6} +(.+)$/gm)].map((m) => m[1]!);
  const leads = [...text.matchAll(/^(?:[-*] +|\d+\. +)?\*{1,2}([^*\n]+)/gm)].map((m) => m[1]!);
  return [...headings, ...leads].map((s) => s.replace(/`/g, '').toLowerCase());
}

/** References `docs/<page>.md, "Section"` or without the comma (the quote may wrap a line) whose page has no such section. */
function staleSectionReferences(file: string): BrokenLink[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const broken: BrokenLink[] = [];
  for (const m of text.matchAll(/docs\/([a-z0-9-]+\.md),?\s+"([^"]{3,120})"/g)) {
    const page = join(ROOT, 'docs', m[1]!);
    const title = m[2]!.replace(/\s*(?:\n\s*(?:\/\/|\*|#)?\s*)+/g, ' ').toLowerCase();
    if (!existsSync(page)) broken.push({ file, href: m[0], problem: `no file docs/${m[1]}` });
    else if (!sectionNames(page).some((name) => name.startsWith(title)))
      broken.push({ file, href: m[0], problem: `no heading or emphasised lead "${title}" in docs/${m[1]}` });
  }
  return broken;
}

describe('links in the documentation', () => {
  it('the anchor rule matches headings as GitHub writes them', () => {
    const found = anchors(join(ROOT, 'docs/operations.md'));
    expect(found).toContain('switch-embedders-and-re-embed-without-paying-twice');
    expect(anchors(join(ROOT, 'docs/core.md'))).toContain('limits-one-write-policy');
  });

  it('every relative link points to an existing file, and every #anchor to a heading of it', () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(20);
    const links = files.flatMap((file) =>
      [...walk(new Lexer().lex(readFileSync(join(ROOT, file), 'utf8')))].filter((t) => t.type === 'link'),
    );
    expect(links.length).toBeGreaterThan(100); // the walk reaches links in tables and lists
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it('a section named in quotes after its page (docs/skills.md "Measured") is still on that page', () => {
    const files = [...markdownFiles(), ...sourceFiles()];
    expect(files.length).toBeGreaterThan(200);
    expect(sectionNames(join(ROOT, 'docs/postgres.md'))).toContain('cost.');
    expect(files.flatMap(staleSectionReferences)).toEqual([]);
  });
});
