import type { MemoryType } from '../contracts';
import { type ContextBlockOptions, renderContextBlock } from '../prompt';
import { MemoryStore, type MemoryStoreOptions, type RecallResult } from '../store/memory-store';

export interface AgentMemoryOptions extends MemoryStoreOptions {}

export interface ContextOptions extends ContextBlockOptions {
  /** A file the user is working on (activates skills by glob). */
  filePath?: string;
  /** How many memories to recall; default 5. */
  k?: number;
  types?: readonly MemoryType[];
  /** Memories below this final score are left out; default 0.2. */
  minScore?: number;
}

export interface PromptContext {
  memories: RecallResult[];
  /** The rendered, delimited system block ('' when nothing is relevant). */
  block: string;
}

/**
 * The facade adapters use: one object over a backend and an embedder (plus
 * tenant and branch) that remembers, recalls and answers "what belongs in the
 * prompt for this message". Skills, decay, branches and teleport attach here.
 */
export class AgentMemory extends MemoryStore {
  /** Memories (and skills) relevant to one user message, rendered for the system prompt. */
  async contextFor(message: string, options: ContextOptions = {}): Promise<PromptContext> {
    await this.init();
    const memories =
      typeof message === 'string' && message.trim() !== ''
        ? await this.recall(message, { k: options.k ?? 5, types: options.types, minScore: options.minScore ?? 0.2 })
        : [];
    return { memories, block: renderContextBlock({ memories }, options) };
  }
}

/** Creates and opens an AgentMemory (checks the embedder against the store). */
export async function createAgentMemory(options: AgentMemoryOptions): Promise<AgentMemory> {
  const memory = new AgentMemory(options);
  await memory.init();
  return memory;
}
