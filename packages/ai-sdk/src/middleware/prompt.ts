import { injectContextBlock } from '@agentmem/core';
import type { Prompt, PromptMessage } from './portable-middleware';

/** What the middleware reads from a prompt: the latest user turn. */
export interface LatestUserTurn {
  /** Text parts of the last user message, joined by newlines ('' when none). */
  text: string;
  /** File names attached to that message (file parts), in order. */
  fileNames: string[];
}

export function latestUserTurn(prompt: Prompt): LatestUserTurn {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role !== 'user') continue;
    const text: string[] = [];
    const fileNames: string[] = [];
    for (const part of message.content) {
      if (part.type === 'text') text.push(part.text);
      else if (part.type === 'file' && part.filename) fileNames.push(part.filename);
    }
    return { text: text.join('\n'), fileNames };
  }
  return { text: '', fileNames: [] };
}

/**
 * Puts the context block into the leading system message (appended to its
 * text) or, when the prompt has none, into a new system message first. An
 * earlier block is replaced, so injecting twice never duplicates it; an empty
 * block removes an earlier one. Other messages are passed through untouched.
 */
export function injectIntoPrompt<M extends PromptMessage>(
  prompt: readonly M[],
  block: string,
): readonly (M | { role: 'system'; content: string })[] {
  const first = prompt[0];
  if (first?.role === 'system') {
    const content = injectContextBlock(first.content, block);
    if (content === first.content) return prompt;
    const rest = prompt.slice(1);
    return content ? [{ ...first, content }, ...rest] : rest;
  }
  if (!block) return prompt;
  return [{ role: 'system', content: block }, ...prompt];
}
