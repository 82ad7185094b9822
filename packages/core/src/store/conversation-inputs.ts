import type { MemoryInput } from '../contracts';
import { invalidInput } from '../errors';
import type { ConversationTurn, RememberConversationOptions } from '../conversation';
import { validateOccurredAt, validateSessionId } from './validate';

/** Neighbouring turns on each side by default (docs/benchmarks.md: window 1..3 measured on LoCoMo). */
export const DEFAULT_CONVERSATION_WINDOW = 2;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A date as words ("Monday 8 May 2023"), so that questions naming a month, year or weekday match it. */
export function spokenDate(iso: string): string {
  const d = new Date(iso);
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** `speaker: text`, the way a turn is stored and shown. */
export function turnLine(turn: Pick<ConversationTurn, 'speaker' | 'text'>): string {
  return `${turn.speaker}: ${turn.text}`;
}

/**
 * One memory input per turn: content `speaker: text`, its time as
 * `occurredAt`, and as context the session line (title and date in words)
 * and the text of up to `window` neighbouring turns on each side (within the
 * session), so that a turn such as
 * "Yes, every Saturday" is found by the question its neighbour asked.
 */
export function conversationInputs(
  turns: readonly ConversationTurn[],
  options: RememberConversationOptions = {},
): MemoryInput[] {
  if (!Array.isArray(turns))
    throw invalidInput('rememberConversation() takes an array of { speaker, text, at? } turns.');
  const window = options.window ?? DEFAULT_CONVERSATION_WINDOW;
  if (!Number.isInteger(window) || window < 0) {
    throw invalidInput(`window must be a non-negative integer (neighbouring turns on each side), got ${window}.`);
  }
  const sessionAt = options.at === undefined ? undefined : validateOccurredAt(options.at, 'at');
  if (options.sessionId !== undefined) validateSessionId(options.sessionId);
  if (options.title !== undefined && typeof options.title !== 'string') throw invalidInput('title must be a string.');
  turns.forEach((turn, i) => {
    if (turn === null || typeof turn !== 'object') throw invalidInput(`Turn ${i} must be an object { speaker, text }.`);
    if (typeof turn.speaker !== 'string' || turn.speaker.trim() === '') {
      throw invalidInput(`Turn ${i} needs a speaker (a name or a role such as "user").`);
    }
    if (typeof turn.text !== 'string' || turn.text.trim() === '') throw invalidInput(`Turn ${i} has no text.`);
  });
  const lines = turns.map(turnLine);
  // Neighbours go into the context without their speaker: both names would be in nearly every
  // context and lose their weight as a term (measured: +0.5 R@10 on LoCoMo, no category lower).
  const texts = turns.map((t) => t.text);
  return turns.map((turn, i) => {
    const at = turn.at === undefined ? sessionAt : validateOccurredAt(turn.at, `turn ${i} at`);
    const when = at ?? sessionAt;
    const header = [options.title?.trim(), when ? `on ${spokenDate(when)}` : undefined].filter(Boolean).join(' ');
    const neighbours = [...texts.slice(Math.max(0, i - window), i), ...texts.slice(i + 1, i + 1 + window)];
    const context = [header ? `Conversation ${header}.` : '', ...neighbours].filter(Boolean).join('\n');
    return {
      content: lines[i]!,
      type: options.type ?? 'user',
      ...(options.importance !== undefined ? { importance: options.importance } : {}),
      ...(options.tags ? { tags: options.tags } : {}),
      ...(turn.id !== undefined ? { id: turn.id } : {}),
      ...(at ? { occurredAt: at } : {}),
      ...(context ? { context } : {}),
      metadata: {
        ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
        turn: i,
        speaker: turn.speaker,
        ...(turn.metadata ?? {}),
      },
    };
  });
}
