import { CONTEXT_OPEN, type ChatMessage, type ChatPart, injectContextBlock } from '@agentmem/core';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';

/** Text of a message, whatever its content shape. */
export function textOf(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content
    .map((part) =>
      typeof part === 'string' ? part : part.type === 'text' && typeof part.text === 'string' ? part.text : '',
    )
    .join('');
}

export function isHuman(message: BaseMessage): boolean {
  return HumanMessage.isInstance(message);
}

export function isAi(message: BaseMessage): boolean {
  return AIMessage.isInstance(message);
}

/** The latest user message's text ('' when there is none). */
export function latestHumanText(messages: readonly BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (isHuman(messages[i]!)) return textOf(messages[i]!);
  return '';
}

/**
 * The system message with agentmem's block in it, replacing an earlier block
 * (idempotent). Array content keeps its other parts (cache control etc.).
 */
export function withContextBlock(system: SystemMessage | undefined, block: string): SystemMessage {
  const content = system?.content ?? '';
  if (typeof content === 'string') return new SystemMessage(injectContextBlock(content, block));
  const kept = content.filter(
    (p) => !(typeof p === 'object' && p.type === 'text' && String(p.text).includes(CONTEXT_OPEN)),
  );
  return new SystemMessage({ content: block ? [...kept, { type: 'text', text: `\n\n${block}` }] : kept });
}

/** LangChain messages as core's runtime-neutral chat messages (for compaction and summaries). */
export function toChatMessages(messages: readonly BaseMessage[]): ChatMessage[] {
  return messages.map((m) => {
    const parts: ChatPart[] = [];
    const text = textOf(m);
    if (ToolMessage.isInstance(m)) {
      parts.push({ type: 'tool-result', toolCallId: m.tool_call_id, toolName: m.name ?? 'tool', output: text });
      return { role: 'tool', parts, ref: m };
    }
    if (text) parts.push({ type: 'text', text });
    if (AIMessage.isInstance(m)) {
      for (const call of m.tool_calls ?? []) {
        parts.push({ type: 'tool-call', toolCallId: call.id ?? '', toolName: call.name, input: call.args });
      }
      return { role: 'assistant', parts, ref: m };
    }
    return { role: SystemMessage.isInstance(m) ? 'system' : 'user', parts, ref: m };
  });
}

/** Back to LangChain messages: untouched ones are the originals, changed ones rebuilt. */
export function fromChatMessages(messages: readonly ChatMessage[]): BaseMessage[] {
  return messages.map((m) => {
    if (m.ref) return m.ref as BaseMessage;
    const text = m.parts
      .map((p) => (p.type === 'text' ? p.text : p.type === 'tool-result' ? p.output : ''))
      .filter(Boolean)
      .join('\n');
    if (m.role === 'tool') {
      const result = m.parts.find((p) => p.type === 'tool-result');
      return new ToolMessage({
        content: text,
        tool_call_id: result?.type === 'tool-result' ? result.toolCallId : '',
        ...(result?.type === 'tool-result' ? { name: result.toolName } : {}),
      });
    }
    if (m.role === 'assistant') {
      const calls = m.parts.flatMap((p) =>
        p.type === 'tool-call'
          ? [{ id: p.toolCallId, name: p.toolName, args: (p.input ?? {}) as Record<string, unknown> }]
          : [],
      );
      return new AIMessage({ content: text, tool_calls: calls });
    }
    if (m.role === 'system') return new SystemMessage(text);
    return new HumanMessage(text);
  });
}
