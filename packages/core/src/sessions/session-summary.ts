import type { Memory, Usage } from '../contracts';
import { invalidInput } from '../errors';
import type { ChatMessage } from '../compaction/chat-message';
import { approximateTokens, countMessages, messageText, type TokenCounter } from '../compaction/token-counter';
import { contentHash } from '../text';
import type { MemoryStore } from '../store/memory-store';
import { validateSessionId } from '../store/validate';
import { stableId } from '../util';

/** The id of a session's summary memory (one per tenant and session). */
export function sessionSummaryId(tenant: string, sessionId: string): string {
  return stableId('session', tenant, sessionId);
}

/** Session summaries live here, one memory per session, outside normal recall. */
export function sessionNamespace(sessionId: string): string {
  return `session:${sessionId}`;
}

export type Summarizer = (input: {
  previousSummary?: string;
  /** Messages since the previous summary. */
  messages: ChatMessage[];
}) => Promise<string | { text: string; usage?: Usage }>;

export interface SessionSummaryOptions {
  /** The thread or conversation id; the next session with the same id starts from its summary. */
  sessionId: string;
  summarize: Summarizer;
  /** Update after this many new user turns; default 6. */
  everyTurns?: number;
  /** ...or after this many new tokens; default 3000. */
  everyTokens?: number;
  countTokens?: TokenCounter;
  /** Called when an update fails (the previous summary stays). */
  onError?: (error: unknown) => void;
}

export interface SummaryUpdate {
  updated: boolean;
  /** Why it ran or not: `threshold`, `forced`, `below-threshold`, `failed`. */
  reason: 'threshold' | 'forced' | 'below-threshold' | 'failed';
  summary?: Memory;
  error?: unknown;
  cost?: { durationMs: number; tokens?: number };
}

/**
 * A running summary of one session (what the user is doing, decisions, open
 * threads), kept as a memory in the `session:<id>` namespace of the store's
 * tenant. Updated when enough new turns or tokens have arrived since the last
 * update; a failed update keeps the previous summary.
 */
export class SessionSummary {
  private readonly everyTurns: number;
  private readonly everyTokens: number;
  private readonly count: TokenCounter;
  private running: Promise<SummaryUpdate> | undefined;

  constructor(
    private readonly store: MemoryStore,
    private readonly options: SessionSummaryOptions,
  ) {
    if (options?.sessionId === undefined)
      throw invalidInput('SessionSummary needs a sessionId (a thread or conversation id).');
    validateSessionId(options.sessionId);
    if (typeof options.summarize !== 'function') throw invalidInput('SessionSummary needs a summarize function.');
    this.everyTurns = options.everyTurns ?? 6;
    this.everyTokens = options.everyTokens ?? 3000;
    this.count = options.countTokens ?? approximateTokens;
  }

  get id(): string {
    return sessionSummaryId(this.store.tenant, this.options.sessionId);
  }

  /** The latest summary of this session, if any. */
  async latest(): Promise<Memory | undefined> {
    return this.store.get(this.id);
  }

  /**
   * Looks at the whole conversation so far and updates the summary when the
   * part not yet summarised crosses a threshold. Concurrent calls share one update.
   */
  async observe(messages: readonly ChatMessage[]): Promise<SummaryUpdate> {
    if (this.running) return this.running;
    this.running = this.run(messages, false).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * The summary of `old`, the part of a conversation the auto compaction level
   * folds away: the stored summary while it covers at least as many messages,
   * else a fresh update (which throws when the summariser fails).
   */
  async summarizeOld(old: readonly ChatMessage[]): Promise<{ text: string; update?: SummaryUpdate }> {
    const part = old.filter((m) => m.role !== 'system');
    const latest = await this.latest();
    if (latest && freshStart(part, latest) >= part.length) return { text: latest.content };
    const update = await this.update(part);
    if (!update.updated || !update.summary) throw update.error ?? new Error('the session summary was not updated');
    return { text: update.summary.content, update };
  }

  /** Updates now, whatever the thresholds say. */
  async update(messages: readonly ChatMessage[]): Promise<SummaryUpdate> {
    return this.run(messages, true);
  }

  private async run(messages: readonly ChatMessage[], force: boolean): Promise<SummaryUpdate> {
    const previous = await this.latest();
    const fresh = messages.slice(freshStart(messages, previous)).filter((m) => m.role !== 'system');
    const turns = fresh.filter((m) => m.role === 'user').length;
    const tokens = countMessages(fresh, this.count);
    if (!force && (fresh.length === 0 || (turns < this.everyTurns && tokens < this.everyTokens))) {
      return { updated: false, reason: 'below-threshold', ...(previous ? { summary: previous } : {}) };
    }
    const started = Date.now();
    try {
      const out = await this.options.summarize({ previousSummary: previous?.content, messages: fresh });
      const text = typeof out === 'string' ? out : out?.text;
      if (typeof text !== 'string' || text.trim() === '') throw new Error('the summariser returned no text');
      const metadata = {
        sessionId: this.options.sessionId,
        messagesCovered: messages.length,
        ...(messages.length > 0
          ? { firstMessage: messageHash(messages[0]!), lastCovered: messageHash(messages[messages.length - 1]!) }
          : {}),
        kind: 'session-summary',
      };
      const summary = previous
        ? await this.store.update(this.id, { content: text, metadata })
        : await this.store.remember({
            id: this.id,
            content: text,
            type: 'user',
            namespace: sessionNamespace(this.options.sessionId),
            importance: 0.6,
            tags: ['session-summary'],
            metadata,
          });
      const usageTokens = typeof out === 'string' ? undefined : out.usage?.tokens;
      return {
        updated: true,
        reason: force ? 'forced' : 'threshold',
        summary,
        cost: { durationMs: Date.now() - started, ...(usageTokens !== undefined ? { tokens: usageTokens } : {}) },
      };
    } catch (error) {
      this.options.onError?.(error);
      return { updated: false, reason: 'failed', error, ...(previous ? { summary: previous } : {}) };
    }
  }
}

function messageHash(message: ChatMessage): string {
  return contentHash(`${message.role}\n${messageText(message)}`);
}

/**
 * Where the part of `messages` the summary does not cover yet starts. When the
 * conversation starts as it did at the last update, by position; when the
 * application sent a window of it (or trimmed it), just after the last message
 * the summary covered, or from the start when that message is gone.
 */
function freshStart(messages: readonly ChatMessage[], summary: Memory | undefined): number {
  const covered = Number(summary?.metadata.messagesCovered ?? 0);
  const { firstMessage, lastCovered } = summary?.metadata ?? {};
  if (covered === 0 || typeof lastCovered !== 'string') return Math.min(covered, messages.length);
  if (messages.length > 0 && messageHash(messages[0]!) === firstMessage) return Math.min(covered, messages.length);
  for (let i = messages.length - 1; i >= 0; i--) if (messageHash(messages[i]!) === lastCovered) return i + 1;
  return 0;
}
