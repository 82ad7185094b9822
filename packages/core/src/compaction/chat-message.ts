/**
 * A runtime-neutral chat message, so compaction is written once for the AI
 * SDK and LangChain. Adapters map their messages to this and back; `ref`
 * carries the original so untouched messages come back unchanged.
 */
export type ChatPart =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: string };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  parts: ChatPart[];
  /** The runtime's own message object; dropped when compaction changes the message. */
  ref?: unknown;
}
