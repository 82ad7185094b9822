import { invalidInput } from '../errors';
import { sanitizeForPrompt } from '../prompt/sanitize';
import type { ChatMessage, ChatPart } from './chat-message';
import { approximateTokens, countMessages, safeJson, type TokenCounter } from './token-counter';

export type CompactionLevel = 'none' | 'snip' | 'micro' | 'collapse' | 'auto';

export interface CompactionOptions {
  /** Token budget for the whole prompt. */
  maxTokens: number;
  countTokens?: TokenCounter;
  /** The last N user turns are never touched. Default 4. */
  keepRecentTurns?: number;
  /** snip: longer old texts and tool outputs are cut to head + tail. Default 1200 characters. */
  snipChars?: number;
  /** collapse: characters per folded line. Default 160. */
  collapseLineChars?: number;
  /**
   * auto: summarise the older messages (and an earlier summary) into one text.
   * Without it the cascade stops after collapse.
   */
  summarize?: (input: { messages: ChatMessage[]; previousSummary?: string }) => Promise<string>;
  previousSummary?: string;
}

export interface CompactionReport {
  /** The last level that ran ('none' when the prompt already fit). */
  level: CompactionLevel;
  levelsRun: CompactionLevel[];
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** True when even the last level could not reach the budget (recent turns are never cut). */
  overBudget: boolean;
  /** The summary the auto level produced. */
  summary?: string;
}

export interface CompactionResult {
  messages: ChatMessage[];
  report: CompactionReport;
}

/**
 * Cascading compaction: snip, then micro, then collapse, then auto, each
 * only when the previous left the prompt over budget. Leading system
 * messages and the last turns are never changed, and the split between old
 * and recent falls before a user message, so a tool call never loses its result.
 */
export async function compactMessages(
  messages: readonly ChatMessage[],
  options: CompactionOptions,
): Promise<CompactionResult> {
  if (!Number.isFinite(options.maxTokens) || options.maxTokens <= 0) {
    throw invalidInput(`maxTokens must be a positive number, got ${options.maxTokens}.`);
  }
  const count = options.countTokens ?? approximateTokens;
  const tokensBefore = countMessages(messages, count);
  const report: CompactionReport = {
    level: 'none',
    levelsRun: [],
    tokensBefore,
    tokensAfter: tokensBefore,
    messagesBefore: messages.length,
    messagesAfter: messages.length,
    overBudget: false,
  };
  const done = (result: ChatMessage[]): CompactionResult => {
    report.tokensAfter = countMessages(result, count);
    report.messagesAfter = result.length;
    report.overBudget = report.tokensAfter > options.maxTokens;
    return { messages: result, report };
  };
  if (tokensBefore <= options.maxTokens) return done([...messages]);

  const { head, old, recent } = splitConversation(messages, options.keepRecentTurns ?? 4);
  if (old.length === 0) return done([...messages]);
  const fits = (middle: ChatMessage[]) => countMessages([...head, ...middle, ...recent], count) <= options.maxTokens;
  const run = (level: CompactionLevel) => {
    report.levelsRun.push(level);
    report.level = level;
  };

  run('snip');
  let middle = old.map((m) => snipMessage(m, options.snipChars ?? 1200));
  if (fits(middle)) return done([...head, ...middle, ...recent]);

  run('micro');
  middle = middle.map(microMessage);
  if (fits(middle)) return done([...head, ...middle, ...recent]);

  run('collapse');
  middle = [collapseMessages(middle, options.collapseLineChars ?? 160, options.previousSummary)];
  if (fits(middle) || !options.summarize) return done([...head, ...middle, ...recent]);

  run('auto');
  const summary = await options.summarize({ messages: old, previousSummary: options.previousSummary });
  report.summary = summary;
  middle = [
    {
      role: 'user',
      parts: [{ type: 'text', text: `[Summary of the earlier conversation]\n${sanitizeForPrompt(summary)}` }],
    },
  ];
  return done([...head, ...middle, ...recent]);
}

/**
 * Leading system messages, the old part, and the last `keepRecentTurns` turns
 * (a turn starts at a user message). Splitting only before a user message
 * keeps every tool call with its result.
 */
export function splitConversation(messages: readonly ChatMessage[], keepRecentTurns: number) {
  let h = 0;
  while (h < messages.length && messages[h]!.role === 'system') h++;
  const head = messages.slice(0, h);
  const rest = messages.slice(h);
  let cut = rest.length;
  let turns = 0;
  for (let i = rest.length - 1; i >= 0; i--) {
    if (rest[i]!.role === 'user') {
      turns++;
      cut = i;
      if (turns >= keepRecentTurns) break;
    }
  }
  if (turns === 0) cut = rest.length; // no user message: nothing counts as recent turns
  // Tool calls whose result is not in the old part (pending) move to the recent part.
  while (cut > 0 && hasUnansweredCall(rest.slice(0, cut))) cut = previousUserIndex(rest, cut);
  return { head, old: rest.slice(0, cut), recent: rest.slice(cut) };
}

function previousUserIndex(messages: readonly ChatMessage[], before: number): number {
  for (let i = before - 1; i > 0; i--) if (messages[i]!.role === 'user') return i;
  return 0;
}

function hasUnansweredCall(messages: readonly ChatMessage[]): boolean {
  const open = new Set<string>();
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === 'tool-call') open.add(p.toolCallId);
      if (p.type === 'tool-result') open.delete(p.toolCallId);
    }
  }
  return open.size > 0;
}

function snipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, Math.floor((max - 40) / 2));
  return `${text.slice(0, keep)}\n[… snipped ${text.length - 2 * keep} characters …]\n${text.slice(-keep)}`;
}

function snipMessage(message: ChatMessage, max: number): ChatMessage {
  let changed = false;
  const parts = message.parts.map((p): ChatPart => {
    if (p.type === 'text' && p.text.length > max) {
      changed = true;
      return { ...p, text: snipText(p.text, max) };
    }
    if (p.type === 'tool-result' && p.output.length > max) {
      changed = true;
      return { ...p, output: snipText(p.output, max) };
    }
    return p;
  });
  return changed ? { role: message.role, parts } : message;
}

function microMessage(message: ChatMessage): ChatMessage {
  if (!message.parts.some((p) => p.type === 'tool-result')) return message;
  return {
    role: message.role,
    parts: message.parts.map((p) =>
      p.type === 'tool-result'
        ? { ...p, output: `[result of ${p.toolName} removed to save context: ${p.output.length} characters]` }
        : p,
    ),
  };
}

function oneLine(text: string, max: number): string {
  const flat = sanitizeForPrompt(text, { singleLine: true });
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function collapseMessages(messages: readonly ChatMessage[], max: number, previousSummary?: string): ChatMessage {
  const lines: string[] = ['[Earlier conversation, folded to one line per message]'];
  if (previousSummary) lines.push(`summary so far: ${oneLine(previousSummary, max * 2)}`);
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === 'text' && p.text.trim()) lines.push(`${m.role}: ${oneLine(p.text, max)}`);
      if (p.type === 'tool-call') lines.push(`${m.role} called ${p.toolName}(${oneLine(safeJson(p.input), max / 2)})`);
      if (p.type === 'tool-result') lines.push(`${p.toolName} returned: ${oneLine(p.output, max / 2)}`);
    }
  }
  return { role: 'user', parts: [{ type: 'text', text: lines.join('\n') }] };
}
