import type { ChatMessage } from './chat-message';

/** Counts tokens of a text. Default: about four characters a token. */
export type TokenCounter = (text: string) => number;

export const approximateTokens: TokenCounter = (text) => Math.ceil(text.length / 4);

export function messageText(message: ChatMessage): string {
  return message.parts
    .map((p) => {
      if (p.type === 'text') return p.text;
      if (p.type === 'tool-call') return `${p.toolName}(${safeJson(p.input)})`;
      return p.output;
    })
    .join('\n');
}

export function countMessages(messages: readonly ChatMessage[], count: TokenCounter): number {
  // A few tokens of framing per message, as chat templates add.
  return messages.reduce((sum, m) => sum + count(messageText(m)) + 4, 0);
}

export function safeJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}
