import type { ChatMessage, ChatPart } from '@agentmem/core';
import type {
  Prompt,
  PromptMessage,
  PromptPart,
  ResponseContent,
  ToolResultOutput,
} from '../middleware/portable-middleware';

/**
 * An AI SDK prompt as core's runtime-neutral chat messages, one part per
 * prompt part (files, reasoning and approvals as short text markers, so they
 * count and fold), each message keeping its original as `ref`.
 */
export function toChatMessages(prompt: Prompt): ChatMessage[] {
  return prompt.map((message) => ({
    role: message.role,
    parts:
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content.map(toChatPart),
    ref: message,
  }));
}

function toChatPart(part: PromptPart): ChatPart {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { type: 'text', text: part.text };
    case 'file':
      return { type: 'text', text: `[file ${part.filename ?? part.mediaType}]` };
    case 'tool-call':
      return { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: outputText(part.output),
      };
    case 'tool-approval-response':
      return {
        type: 'text',
        text: `[tool call ${part.approved ? 'approved' : 'denied'}${part.reason ? `: ${part.reason}` : ''}]`,
      };
    default:
      return { type: 'text', text: `[${part.type}]` };
  }
}

function outputText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value) ?? '';
    case 'execution-denied':
      return `[execution denied${output.reason ? `: ${output.reason}` : ''}]`;
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? (item.text ?? '') : `[${item.type}]`)).join('\n');
  }
}

/**
 * Back to an AI SDK prompt. Untouched messages are the originals. Snip and
 * micro change a message part by part, so a changed message keeping its
 * position is rebuilt from its original (files, provider options and part
 * types kept, only the shortened texts and outputs replaced); messages that
 * collapse and auto wrote are new user messages.
 */
export function fromChatMessages(compacted: readonly ChatMessage[], input: readonly ChatMessage[]): PromptMessage[] {
  const samePositions = compacted.length === input.length;
  return compacted.map((message, i) => {
    if (message.ref) return message.ref as PromptMessage;
    const before = samePositions ? input[i] : undefined;
    const original = before?.ref as PromptMessage | undefined;
    if (before && original && original.role === message.role && before.parts.length === message.parts.length) {
      return rebuild(original, before.parts, message.parts);
    }
    return fresh(message);
  });
}

function rebuild(original: PromptMessage, before: readonly ChatPart[], after: readonly ChatPart[]): PromptMessage {
  if (original.role === 'system') {
    const part = after[0];
    return { ...original, content: part?.type === 'text' ? part.text : original.content };
  }
  const content = original.content.map((part, j) => {
    const now = after[j]!;
    if (now === before[j]) return part;
    if ((part.type === 'text' || part.type === 'reasoning') && now.type === 'text') return { ...part, text: now.text };
    if (part.type === 'tool-result' && now.type === 'tool-result') {
      const errored = part.output.type === 'error-text' || part.output.type === 'error-json';
      return { ...part, output: { type: errored ? 'error-text' : 'text', value: now.output } };
    }
    return part;
  });
  return { ...original, content } as PromptMessage;
}

function fresh(message: ChatMessage): PromptMessage {
  const text = (p: ChatPart) => (p.type === 'text' ? [{ type: 'text' as const, text: p.text }] : []);
  switch (message.role) {
    case 'system':
      return {
        role: 'system',
        content: message.parts
          .flatMap(text)
          .map((p) => p.text)
          .join('\n'),
      };
    case 'user':
      return { role: 'user', content: message.parts.flatMap(text) };
    case 'tool':
      return { role: 'tool', content: message.parts.flatMap((p) => (p.type === 'tool-result' ? [toolResult(p)] : [])) };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.parts.map((p) =>
          p.type === 'text'
            ? { type: 'text' as const, text: p.text }
            : p.type === 'tool-call'
              ? { type: 'tool-call' as const, toolCallId: p.toolCallId, toolName: p.toolName, input: p.input }
              : toolResult(p),
        ),
      };
  }
}

function toolResult(p: Extract<ChatPart, { type: 'tool-result' }>) {
  return {
    type: 'tool-result' as const,
    toolCallId: p.toolCallId,
    toolName: p.toolName,
    output: { type: 'text' as const, value: p.output },
  };
}

/** A model response (its text and tool calls) as one assistant message, or none when it has neither. */
export function responseMessage(content: readonly ResponseContent[]): ChatMessage | undefined {
  const parts: ChatPart[] = [];
  const text = content.flatMap((c) => (c.type === 'text' ? [c.text ?? ''] : [])).join('');
  if (text) parts.push({ type: 'text', text });
  for (const c of content) {
    if (c.type === 'tool-call')
      parts.push({
        type: 'tool-call',
        toolCallId: c.toolCallId ?? '',
        toolName: c.toolName ?? '',
        input: parseInput(c.input),
      });
  }
  return parts.length > 0 ? { role: 'assistant', parts } : undefined;
}

/** v3 and v4 responses carry tool input as JSON text. */
function parseInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
