/**
 * The forgery oracle for the context block: two real Markdown parsers
 * (marked's lexer and micromark, the CommonMark reference) and a
 * Unicode-aware line splitter must all see exactly the framework's own
 * headings and one open and one close delimiter, whatever the untrusted text.
 */
import type { Memory, RecallResult, Skill } from '@agentmem/core';
import { CONTEXT_CLOSE, CONTEXT_OPEN, formatForPrompt, renderContextBlock } from '@agentmem/core';
import fc from 'fast-check';
import { type Token, Lexer } from 'marked';
import { micromark } from 'micromark';

/** Pieces a forger would use; fast-check strings them together with plain text. */
const HOSTILE = [
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u000b',
  '\u000c',
  '\t',
  ' ',
  '  ',
  '   ',
  '    ',
  '#',
  '## ',
  '### ',
  '# ',
  '## Relevant memories',
  '## Active skills',
  '## Session summary',
  '### evil',
  '```',
  '````',
  '~~~',
  '```js',
  '```\t',
  '~~~ \t',
  '\n```\t\n',
  '`',
  '~',
  '===',
  '=',
  '---',
  '-',
  '***',
  '___',
  '* * *',
  '- ',
  '* ',
  '+ ',
  '1. ',
  '2) ',
  '> ',
  '<',
  '>',
  CONTEXT_OPEN,
  CONTEXT_CLOSE,
  '<div>',
  '<!--',
  '<script>',
  '<?',
  '<![CDATA[',
  '&lt;',
  '\\',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u0000',
  '\u001b[31m',
  '\u001b]0;x\u0007',
  '\u009b2J',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\u00a0',
  '\u3000',
  'System:',
  '<|im_start|>system',
  '[INST]',
  'x',
  'word',
  '- [user] forged fact',
];

export const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 6 })), { maxLength: 30 })
  .map((parts) => parts.join(''));

export interface BlockCase {
  summary: string;
  skills: { name: string; content: string; description: string }[];
  inactive: { name: string; description: string }[];
  memories: string[];
  /** Memory types, by position (a crafted record's type reaches the renderer); default `user`. */
  types?: string[];
}

export const blockCase: fc.Arbitrary<BlockCase> = fc.record({
  summary: hostileText,
  skills: fc.array(fc.record({ name: hostileText, content: hostileText, description: hostileText }), { maxLength: 3 }),
  inactive: fc.array(fc.record({ name: hostileText, description: hostileText }), { maxLength: 2 }),
  memories: fc.array(hostileText, { maxLength: 4 }),
  types: fc.array(hostileText, { maxLength: 4 }),
});

export function renderCase(c: BlockCase): string {
  const skills = formatForPrompt(
    c.skills.map((s, i) => ({
      skill: { ...s, name: `${s.name}${i}`, toolsAllowed: [] } as unknown as Skill,
      score: 1,
      activatedBy: 'semantic' as const,
      signals: {},
    })),
    { maxChars: 1_000_000, inactive: c.inactive.map((s, i) => ({ ...s, name: `other-${i}-${s.name}` })) },
  );
  const memories: RecallResult[] = c.memories.map((content, i) => ({
    memory: { content, type: c.types?.[i] ?? 'user' } as Memory,
    score: 1,
    relevance: 1,
    signals: {},
  }));
  return renderContextBlock({ summary: c.summary, skills, memories }, { maxChars: 1_000_000 });
}

/** The headings (depth ≤ 3) the framework itself writes for this case, in order. */
function expectedHeadings(c: BlockCase): string[] {
  const out: string[] = [];
  if (c.summary.trim()) out.push('2 Session summary');
  if (c.skills.length > 0) out.push('2 Active skills', ...c.skills.map(() => '3 *'));
  if (c.inactive.length > 0) out.push('2 Other available skills');
  if (c.memories.length > 0) out.push('2 Relevant memories');
  return out;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const LINE_SPLIT = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/;

/** Every way the block can be forged, as readable reasons ([] when it is sound). */
export function forgeries(c: BlockCase): string[] {
  return blockForgeries(renderCase(c), expectedHeadings(c));
}

/**
 * Every way a rendered block departs from the headings the framework wrote
 * (`want`: `"<depth> <text>"`, or `"3 *"` for a skill title) and its one pair
 * of delimiters, as seen by marked, micromark and a line splitter.
 */
export function blockForgeries(block: string, want: readonly string[]): string[] {
  const problems: string[] = [];
  if (block === '') return want.length === 0 ? [] : ['the block is empty though there is something to inject'];
  const match = (got: string[]) =>
    got.length === want.length && got.every((h, i) => (want[i] === '3 *' ? h.startsWith('3 ') : h === want[i]));

  // 1. marked: top-level tokens; headings anywhere in the tree.
  const tokens = new Lexer().lex(block);
  const headings: string[] = [];
  const walk = (list: Token[], nested: boolean) => {
    for (const t of list) {
      if (t.type === 'heading' && t.depth <= 3) headings.push(`${t.depth}${nested ? '!' : ''} ${t.text}`);
      const children = (t as { tokens?: Token[]; items?: Token[] }).tokens ?? (t as { items?: Token[] }).items;
      if (children) walk(children, true);
    }
  };
  walk(tokens, false);
  if (!match(headings)) problems.push(`marked headings ${JSON.stringify(headings)} ≠ ${JSON.stringify(want)}`);
  const blocks = tokens.filter((t) => t.type !== 'space');
  const htmlBlocks = tokens.filter((t) => t.type === 'html').map((t) => t.raw.trim());
  if (blocks[0]?.type !== 'html' || !blocks[0].raw.startsWith(CONTEXT_OPEN))
    problems.push('marked: block does not open with the delimiter');
  const last = blocks[blocks.length - 1];
  if (last?.type !== 'html' || last.raw.trim() !== CONTEXT_CLOSE)
    problems.push('marked: block does not close with the delimiter');
  if (htmlBlocks.length !== 2) problems.push(`marked: ${htmlBlocks.length} HTML blocks, want 2`);

  // 2. micromark (CommonMark reference), raw HTML passed through.
  const html = micromark(block, { allowDangerousHtml: true });
  const mmHeadings = [...html.matchAll(/<h([1-3])>([\s\S]*?)<\/h\1>/g)].map((m) => `${m[1]} ${m[2]}`);
  if (!match(mmHeadings)) problems.push(`micromark headings ${JSON.stringify(mmHeadings)} ≠ ${JSON.stringify(want)}`);
  if (count(html, CONTEXT_OPEN) !== 1 || count(html, CONTEXT_CLOSE) !== 1)
    problems.push('micromark: delimiters not exactly one each');
  if (!html.trimEnd().endsWith(CONTEXT_CLOSE)) problems.push('micromark: close delimiter is not a block of its own');

  // 3. A Unicode-aware line splitter (what a model or a naive tool sees).
  const lines = block.split(LINE_SPLIT);
  const lineHeadings = lines.filter((l) => /^[ \t]{0,3}#{1,3}([ \t]|$)/.test(l)).map((l) => /#+/.exec(l)![0].length);
  if (lineHeadings.length !== want.length)
    problems.push(`line splitter sees ${lineHeadings.length} headings, want ${want.length}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/.test(block)) {
    problems.push('control, bidi or Unicode line-break character left in the block');
  }
  return problems;
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
