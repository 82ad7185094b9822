import { toDisplayText } from '../text/control-chars';

export interface SanitizeOptions {
  /** Collapse to one line (memory lines, names, folded tool results). */
  singleLine?: boolean;
  /**
   * Multi-line mode: the shallowest heading level the text may keep; its own
   * headings are shifted down to it (default 4, below the block's `##`
   * sections and `###` skill titles).
   */
  headingFloor?: number;
}

/**
 * The one renderer for untrusted text in the prompt (memory content, skill
 * bodies, session summaries, tool results). By construction the result
 * cannot close or reopen the context block, fake a chat-template role
 * marker, or start a section of its own: every kind of line break is
 * normalised to `\n`, control and bidi characters are removed, and every
 * line CommonMark could read as a heading, setext underline, thematic break,
 * fence or HTML block is demoted or escaped, whatever the surrounding
 * context (list item, code block). A fence the text leaves open is closed.
 */
export function sanitizeForPrompt(text: string, options: SanitizeOptions = {}): string {
  // A crafted record may hold anything where a string belongs: it is rendered as text, never trusted.
  let out = neutraliseTokens(toDisplayText(typeof text === 'string' ? text : String(text)));
  if (options.singleLine) return out.replace(/\s+/g, ' ').trim();
  out = neutraliseBlocks(out, options.headingFloor ?? 4);
  // A line that poses as a role ("System: ...") is quoted so it reads as data.
  return out.replace(/^([ \t]*)(system|assistant|user|developer|tool)([ \t]*:)/gim, '$1"$2"$3');
}

function neutraliseTokens(text: string): string {
  return (
    text
      // Block delimiters, HTML and any other tag-like angle brackets become look-alikes.
      .replace(/</g, '‹')
      .replace(/>/g, '›')
      // Chat-template control tokens (<|im_start|>, [INST], etc.) lose their brackets.
      .replace(/\[\/?INST\]/gi, (m) => m.replace(/\[/g, '(').replace(/\]/g, ')'))
      .replace(/\|(im_start|im_end|system|user|assistant|endoftext)\|/gi, '¦$1¦')
  );
}

/** Any JS whitespace after the hashes, not just space/tab: marked reads `#` + NBSP, BOM or U+3000 as a heading. */
const ATX = /^#{1,6}(?=\s|$)/;
/**
 * Setext underlines and thematic breaks (over-broad on purpose: escaping plain text is harmless).
 * Any trailing JS whitespace counts: the block trims its parts, and `trim()` strips U+3000 or NBSP too.
 */
const RULE = /^[-=*_][-=*_\s]*$/;
const FENCE = /^(`{3,}|~{3,})(.*)$/;
/** Where a line's leaf content may start: after indentation and any list markers. */
const CONTAINER_PREFIX = /^[ \t]*((?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)[ \t]*)?/;

function leafStarts(line: string): number[] {
  const starts: number[] = [];
  let pos = 0;
  for (;;) {
    const m = CONTAINER_PREFIX.exec(line.slice(pos));
    const indent = m![0].length - (m![1]?.length ?? 0);
    starts.push(pos + indent);
    if (!m![1]) return starts;
    pos += m![0].length;
  }
}

function headingLevel(line: string): number {
  for (const at of leafStarts(line)) {
    const m = ATX.exec(line.slice(at));
    if (m) return m[0].length;
  }
  return 0;
}

function neutraliseBlocks(text: string, floor: number): string {
  const lines = text.split('\n');
  // Pass 1: which lines are code. Only unindented fences outside list items are kept, so this is certain.
  const code: boolean[] = [];
  /** Lines that close a fence, by index: written back as the bare run of fence characters. */
  const closers = new Set<number>();
  let fence: { char: string; length: number } | undefined;
  lines.forEach((line, i) => {
    const f = FENCE.exec(line);
    const wasOpen = fence !== undefined;
    if (f && isFence(f[1]!, f[2]!)) code.push(true);
    else code.push(wasOpen);
    if (wasOpen && fence === undefined) closers.add(i);
  });
  // The text's own hierarchy is kept, shifted so its top level is `floor` (code does not count).
  let min = 7;
  lines.forEach((line, i) => {
    const level = code[i] ? 0 : headingLevel(line);
    if (level > 0) min = Math.min(min, level);
  });
  const shift = Math.max(0, floor - min);
  // A closing fence with spaces or tabs after it closes for CommonMark but not for every parser (marked 18
  // reads "```\t" as code): what closes is written as the bare run, which every parser reads as a close.
  const out = lines.map((line, i) => (closers.has(i) ? FENCE.exec(line)![1]! : neutraliseLine(line, code[i]!)));
  if (fence) out.push(fence.char.repeat(fence.length));
  return out.join('\n');

  function neutraliseLine(line: string, inCode: boolean): string {
    for (const at of leafStarts(line)) {
      const leaf = line.slice(at);
      const heading = ATX.exec(leaf);
      // Code too: a reader that ignores fences must not see a section either.
      if (heading) {
        const level = inCode ? Math.max(heading[0].length, floor) : Math.min(6, heading[0].length + shift);
        return `${line.slice(0, at)}${'#'.repeat(Math.max(level, floor))}${leaf.slice(heading[0].length)}`;
      }
      if (FENCE.test(leaf)) return at === 0 ? line : `${line.slice(0, at)}\\${leaf}`;
      if (!inCode && RULE.test(leaf)) return `${line.slice(0, at)}\\${leaf}`;
      // A link reference definition starts here; marked lets its label run across blank lines and
      // swallow the framework's own headings up to a later `]:` (e.g. a skill named `]` in the catalog).
      if (!inCode && leaf.startsWith('[')) return `${line.slice(0, at)}\\${leaf}`;
    }
    return line;
  }

  /** CommonMark's rule for an unindented fence line, given the current state. */
  function isFence(run: string, rest: string): boolean {
    const char = run[0]!;
    if (fence) {
      if (char === fence.char && run.length >= fence.length && /^[ \t]*$/.test(rest)) fence = undefined;
      return true; // inside code, any other fence-like line is content
    }
    if (char === '`' && rest.includes('`')) return false;
    fence = { char, length: run.length };
    return true;
  }
}
