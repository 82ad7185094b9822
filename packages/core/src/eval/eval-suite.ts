import type { MemoryType } from '../contracts';
import type { SkillInput } from '../skills/skill';

/**
 * Recall and skill regression cases, as `agentmem eval` reads them from a
 * case file (docs/eval.md) or the benches build them: each case is a fresh
 * store holding the case's memories, conversation and skills, and the
 * questions and messages asked of it.
 */
export interface EvalSuite {
  /** Where the cases came from (a file name), for messages. */
  source: string;
  cases: EvalCase[];
  /** Things worth saying that did not stop the run (a skill file of a library that did not load). */
  warnings: string[];
}

export interface EvalCase {
  name: string;
  /** 1-based line of the file where the case starts (0 when built in code). */
  line: number;
  /** The store's clock for this case (ISO 8601): reproducible decay and relative dates. */
  now?: string;
  memories: EvalMemory[];
  sessions: EvalSession[];
  skills: SkillInput[];
  questions: EvalQuestion[];
  messages: EvalMessage[];
}

/** A memory stored as it is (`rememberMany`), in every configuration. */
export interface EvalMemory {
  /** The name questions use in `expect`; absent when no question needs it. */
  id?: string;
  line: number;
  content: string;
  type: MemoryType;
  importance?: number;
  tags?: string[];
  occurredAt?: string;
  context?: string;
}

/** A session of a conversation: stored per turn or with `rememberConversation`, by configuration. */
export interface EvalSession {
  id: string;
  line: number;
  at?: string;
  title?: string;
  turns: EvalTurn[];
}

export interface EvalTurn {
  id?: string;
  line: number;
  speaker: string;
  text: string;
  at?: string;
}

/** A recall question and the memories (turn or memory ids) that must come back. */
export interface EvalQuestion {
  line: number;
  question: string;
  expect: string[];
  /** A label to break results down by (LoCoMo's categories: multi-hop, temporal…). */
  category?: string;
}

/** A message to activate skills for, and the skills that count as a correct activation (none: nothing may activate). */
export interface EvalMessage {
  line: number;
  message: string;
  files: string[];
  expect: string[];
  category?: string;
}

/** An empty case, for code that builds suites. */
export function emptyCase(name: string, line = 0): EvalCase {
  return { name, line, memories: [], sessions: [], skills: [], questions: [], messages: [] };
}
