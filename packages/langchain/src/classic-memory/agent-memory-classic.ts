import { type AgentMemory, BackgroundExtractor, type MemoryType } from '@agentmem/core';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { BaseMemory, getInputValue, getOutputValue, type InputValues, type OutputValues } from '@langchain/core/memory';
import { chatModelExtractor } from '../middleware/chat-model-extractor';

export interface AgentMemoryClassicOptions {
  memory: AgentMemory;
  /** Variable the chain's prompt reads; default `memories`. */
  memoryKey?: string;
  inputKey?: string;
  outputKey?: string;
  /** Memories recalled per input; default 5. */
  k?: number;
  /**
   * With a chat model, `saveContext` extracts durable facts (conflict-checked).
   * Without one it stores the user's input as a memory of `exchangeType`.
   */
  extractionModel?: BaseChatModel;
  /** Default `project`. */
  exchangeType?: MemoryType;
}

/**
 * A classic `BaseMemory` for chains that still use one: `loadMemoryVariables`
 * returns the rendered context block for the input (skills and memories),
 * `saveContext` learns from the exchange.
 */
export class AgentMemoryClassic extends BaseMemory {
  private readonly options: AgentMemoryClassicOptions;
  private readonly extractor: BackgroundExtractor | undefined;

  constructor(options: AgentMemoryClassicOptions) {
    super();
    this.options = options;
    this.extractor = options.extractionModel
      ? new BackgroundExtractor({
          extract: chatModelExtractor(options.extractionModel),
          source: 'langchain-classic-memory',
        })
      : undefined;
  }

  get memoryKeys(): string[] {
    return [this.options.memoryKey ?? 'memories'];
  }

  async loadMemoryVariables(values: InputValues): Promise<Record<string, string>> {
    const input = String(getInputValue(values, this.options.inputKey) ?? '');
    const { block } = await this.options.memory.contextFor(input, { k: this.options.k ?? 5 });
    return { [this.memoryKeys[0]!]: block };
  }

  async saveContext(inputValues: InputValues, outputValues: OutputValues): Promise<void> {
    const user = String(getInputValue(inputValues, this.options.inputKey) ?? '');
    const assistant = String(getOutputValue(outputValues, this.options.outputKey) ?? '');
    if (!user.trim()) return;
    if (this.extractor) {
      this.extractor.schedule(this.options.memory, { user, assistant });
      await this.extractor.idle(); // chains call saveContext once per run: learning is done when it returns
      return;
    }
    await this.options.memory.remember({
      content: user,
      type: this.options.exchangeType ?? 'project',
      importance: 0.4,
      tags: ['exchange'],
    });
  }
}
