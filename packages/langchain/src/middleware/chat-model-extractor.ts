import {
  EXTRACTION_INSTRUCTIONS,
  EXTRACTION_JSON_FORMAT,
  type FactExtractor,
  formatExchange,
  parseFactsFromText,
} from '@agentmem/core';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { textOf } from './messages';

/**
 * Fact extraction with any LangChain chat model: the shared instructions, a
 * JSON answer, tolerant parsing. Token usage comes from `usage_metadata`.
 */
export function chatModelExtractor(model: BaseChatModel, instructions = EXTRACTION_INSTRUCTIONS): FactExtractor {
  return async (exchange) => {
    const answer = await model.invoke([
      new SystemMessage(`${instructions}\n\n${EXTRACTION_JSON_FORMAT}`),
      new HumanMessage(formatExchange(exchange)),
    ]);
    const meta = answer.usage_metadata;
    const usage = meta
      ? { inputTokens: meta.input_tokens, outputTokens: meta.output_tokens, totalTokens: meta.total_tokens }
      : {};
    try {
      return { facts: parseFactsFromText(textOf(answer)), usage };
    } catch (garbage) {
      throw Object.assign(garbage as Error, { usage }); // unusable, but paid for: the cost is still reported
    }
  };
}
