import {
  type AgentMemory,
  type ConflictResolution,
  type JsonObject,
  MEMORY_TYPES,
  type Memory,
  type MemoryInput,
  type MemoryType,
} from '@agentmem/core';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { describeMemory } from '../output';
import { choiceOption, parseAtOption, parseFraction, parseList } from '../parse';

export interface RememberOptions {
  type: MemoryType;
  importance?: number;
  tags?: string[];
  metadata?: JsonObject;
  onConflict?: OnConflict;
  /** When it happened (ISO 8601); default now. */
  at?: string;
  /** Text that helps find it, never shown as its content. */
  context?: string;
}

const ON_CONFLICT = ['supersede', 'keep-both', 'keep-existing'] as const;
export type OnConflict = (typeof ON_CONFLICT)[number];

/** What `remember` did; `--json` prints it as is. */
export interface RememberOutcome {
  /** False when the same content was already stored, or keep-existing refused the write. */
  created: boolean;
  /** The same content was stored but superseded or pruned, and is back in recall. */
  restored: boolean;
  /** The memory holding this content; absent when keep-existing refused the write. */
  memory?: Memory;
  /** Similar memories of the same type and scope that say something else. */
  conflicts: { id: string; similarity: number; content: string }[];
  resolution: ConflictResolution;
  /** Ids that this memory superseded (they left recall; `agentmem restore ID` brings one back). */
  superseded: string[];
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('remember')
    .description('store a memory; the same content is stored once, a similar one that says otherwise is superseded')
    .argument('<content>', 'the fact to remember')
    // Checked in the action, not by commander: commander checks mandatory options before arguments, so a bare
    // `agentmem remember` would ask for --type first and for the content only on the second try.
    .addOption(choiceOption('-t, --type <type>', 'memory type, required', MEMORY_TYPES))
    .option('-i, --importance <n>', 'importance from 0 to 1 (default 0.5)', parseFraction)
    .option('--tags <list>', 'comma-separated tags', parseList)
    .option('--metadata <json>', 'a JSON object stored with the memory', parseMetadata)
    .option(
      '--at <when>',
      'when it happened, ISO 8601 (e.g. 2023-05-08 or 2023-05-08T13:56:00Z); default now',
      parseAtOption,
    )
    .option(
      '--context <text>',
      'text that helps find it (the conversation or document it came from), never shown as its content',
    )
    .addOption(
      choiceOption('--on-conflict <resolution>', 'when a similar memory says something else', ON_CONFLICT).default(
        'supersede',
      ),
    )
    .action(async (content: string, options: RememberOptions) => {
      if (options.type === undefined) {
        throw new CliError(
          'USAGE',
          `remember needs --type, one of ${MEMORY_TYPES.join(', ')}: agentmem remember "Orders live in PostgreSQL 16" --type project.`,
          2,
          { helpHint: false },
        );
      }
      const memory = await ctx.openMemory();
      const outcome = await rememberOne(memory, toInput(content, options), options.onConflict);
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
    ...(options.at !== undefined ? { occurredAt: options.at } : {}),
    ...(options.context !== undefined ? { context: options.context } : {}),
  };
}

/** Stores one memory through the conflict check and says what happened. */
export async function rememberOne(
  memory: AgentMemory,
  input: MemoryInput,
  onConflict: OnConflict = 'supersede',
): Promise<RememberOutcome> {
  const result = await memory.rememberWithConflictCheck(input, {
    resolution: onConflict.replace('-', '_') as ConflictResolution,
  });
  return {
    created: result.stored && !result.duplicate,
    restored: result.stored && result.duplicate,
    ...(result.memory ? { memory: result.memory } : {}),
    conflicts: result.conflicts.map((c) => ({ id: c.memory.id, similarity: c.similarity, content: c.memory.content })),
    resolution: result.resolution,
    superseded: result.superseded,
  };
}

export function printOutcome(ctx: CliContext, outcome: RememberOutcome): void {
  if (outcome.conflicts.length > 0) {
    ctx.print(
      `Conflicts with ${outcome.conflicts.length} similar ${outcome.conflicts.length === 1 ? 'memory' : 'memories'}:`,
    );
    for (const c of outcome.conflicts) ctx.print(`  ${c.id}  similarity ${c.similarity.toFixed(3)}  ${c.content}`);
  }
  if (!outcome.memory) {
    ctx.print('Kept the existing memory (--on-conflict keep-existing): nothing written.');
    return;
  }
  if (outcome.superseded.length > 0)
    ctx.print(`Superseded ${outcome.superseded.join(', ')} (out of recall; agentmem restore ID undoes it).`);
  ctx.print(
    outcome.created
      ? 'Remembered:'
      : outcome.restored
        ? 'Remembered again (same content was superseded or pruned), restored:'
        : 'Already remembered (same content), nothing written:',
  );
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
