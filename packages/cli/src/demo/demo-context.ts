import type { AgentMemory } from '@agentmem/core';
import type { CliContext } from '../context';
import type { Column, Row } from '../output';

/** What a demo section gets. Sections print through it so that `demo --json` stays one JSON document. */
export interface DemoContext {
  /** The demo store: a fresh file in `workDir`, or `--db` when given. Branch `main` unless `--branch`. */
  memory: AgentMemory;
  /** Path of that store. */
  dbPath: string;
  /** Scratch directory for files a section creates (skill files, snapshots); removed after the demo. */
  workDir: string;
  cli: CliContext;
  json: boolean;
  heading(title: string): void;
  /** A line for people (nothing with --json). */
  print(text?: string): void;
  table(rows: readonly Row[], columns?: readonly (string | Column)[]): void;
  /** The `demo --json` document: each section adds its results under its own key. */
  summary: Record<string, unknown>;
}

export type DemoSection = (d: DemoContext) => Promise<void>;
