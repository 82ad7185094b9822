import {
  type AgentMemory,
  contentHash,
  type JsonObject,
  KIND,
  MEMORY_TYPES,
  type Memory,
  type MemoryInput,
  type MemoryType,
  namespaceFor,
} from '@agentmem/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CliContext } from '../context';
import { describeMemory } from '../output';
import { parseList, parseNumber } from '../parse';

export interface RememberOptions {
  type: MemoryType;
  importance?: number;
  tags?: string[];
  metadata?: JsonObject;
}

/** What `remember` did; `--json` prints it as is. */
export interface RememberOutcome {
  /** False when the same content was already stored (nothing was written). */
  created: boolean;
  memory: Memory;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('remember')
    .description('store a memory (the same content in the same scope is stored once)')
    .argument('<content>', 'the fact to remember')
    .addOption(new Option('-t, --type <type>', 'memory type').choices(MEMORY_TYPES).makeOptionMandatory())
    .option('-i, --importance <n>', 'importance from 0 to 1 (default 0.5)', parseNumber)
    .option('--tags <list>', 'comma-separated tags', parseList)
    .option('--metadata <json>', 'a JSON object stored with the memory', parseMetadata)
    .action(async (content: string, options: RememberOptions) => {
      const memory = await ctx.openMemory();
      const outcome = await rememberOne(memory, toInput(content, options));
      ctx.emit(outcome, () => printOutcome(ctx, outcome));
    });
}

export function toInput(content: string, options: RememberOptions): MemoryInput {
  return {
    content,
    type: options.type,
    ...(options.importance !== undefined ? { importance: options.importance } : {}),
    ...(options.tags ? { tags: options.tags } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  };
}

/** Stores one memory and says whether it is new or the one already stored with that content. */
export async function rememberOne(memory: AgentMemory, input: MemoryInput): Promise<RememberOutcome> {
  const namespace = input.namespace ?? namespaceFor(input.type, memory.branch);
  const existing = await memory.backend.scan({
    filter: {
      tenant: memory.tenant,
      namespaces: [namespace],
      where: { kind: KIND.memory, contentHash: contentHash(String(input.content)) },
    },
    limit: 1,
  });
  const stored = await memory.remember(input);
  return { created: existing.records.length === 0, memory: stored };
}

export function printOutcome(ctx: CliContext, outcome: RememberOutcome): void {
  ctx.print(outcome.created ? 'Remembered:' : 'Already remembered (same content), nothing written:');
  ctx.print(describeMemory(outcome.memory));
}

function parseMetadata(value: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError(`Not valid JSON. Pass an object such as '{"source":"chat"}'.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidArgumentError(`Expected a JSON object such as '{"source":"chat"}'.`);
  }
  return parsed as JsonObject;
}
