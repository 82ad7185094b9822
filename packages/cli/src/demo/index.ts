import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliContext, noStoreAt } from '../context';
import { CliError } from '../errors';
import { renderTable, toJson } from '../output';
import { branchesSection } from './branches';
import { conflictsSection } from './conflicts';
import { decaySection } from './decay';
import type { DemoContext, DemoSection } from './demo-context';
import { memoriesSection } from './memories';
import { skillsSection } from './skills';
import { teleportSection } from './teleport';

export type { DemoContext, DemoSection } from './demo-context';

// The tour, in order, with what each section's headings show (`demo --help` lists them).
// Adding a section: a new file in ./ and one entry here.
const sections: { topics: string[]; run: DemoSection }[] = [
  { topics: ['skills'], run: skillsSection },
  { topics: ['memories', 'recall', 'prompt injection', 'history'], run: memoriesSection },
  { topics: ['conflicts'], run: conflictsSection },
  { topics: ['decay'], run: decaySection },
  { topics: ['branches'], run: branchesSection },
  { topics: ['teleport'], run: teleportSection },
];

/** Every section of the tour, in order: "skills, memories, recall, …". */
export const DEMO_TOPICS = sections.flatMap((s) => s.topics).join(', ');

export async function runDemo(cli: CliContext): Promise<void> {
  const keep = cli.dbWasGiven;
  // The tour supersedes, decays weeks ahead (pruning), merges and deletes a branch: never on someone's store.
  if (keep && !noStoreAt(cli.dbPath)) throw usedStore(cli.dbPath);
  const workDir = mkdtempSync(join(tmpdir(), 'agentmem-demo-'));
  const dbPath = keep ? cli.dbPath : join(workDir, 'memory.db');
  const started = Date.now();
  try {
    const memory = await cli.openMemory({
      path: dbPath,
      branch: cli.options.branch ?? 'main',
      agentId: cli.options.agent ?? 'demo-agent',
    });
    // A store that is not a file (postgres://, Qdrant) can only be checked once open: it must hold nothing.
    if (keep && (await memory.backend.count({ tenant: null })) > 0) throw usedStore(dbPath);
    const human = (text: string) => {
      if (!cli.json) cli.print(text);
    };
    const d: DemoContext = {
      memory,
      dbPath,
      workDir,
      cli,
      json: cli.json,
      heading: (title) => human(`\n=== ${title} ${'='.repeat(Math.max(3, 72 - title.length))}\n`),
      print: (text = '') => human(text),
      table: (rows, columns) =>
        human(rows.length > 0 ? renderTable(rows, columns, { width: cli.io.columns }) : '(none)'),
      summary: {},
    };
    human(
      `agentmem demo: a fresh memory store at ${dbPath}${keep ? '' : ' (removed afterwards; pass --db PATH to keep one)'}`,
    );
    for (const section of sections) await section.run(d);
    const elapsedMs = Date.now() - started;
    if (cli.json) {
      cli.print(toJson({ store: dbPath, kept: keep, elapsedMs, embedding: { ...memory.usage }, ...d.summary }));
    } else {
      const calls = memory.usage.calls > 0 ? `${memory.usage.calls} embedding calls` : 'no embedding API calls';
      human(`\nDone in ${elapsedMs} ms (${calls}; embedder ${memory.embedder.id}).`);
      human(
        'The offline hashing embedder matches words, not meaning. For semantic recall pass another embedder to createSqliteMemory({ embedder }): cohereEmbedder() from @agentmem/cohere, aiSdkEmbedder(model) from @agentmem/ai-sdk, or langchainEmbedder(embeddings) from @agentmem/langchain (docs/cohere.md, docs/ai-sdk.md, docs/langchain.md).',
      );
    }
  } finally {
    await cli.close(); // before removing its directory
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** `demo --db PATH` takes a new path (or an empty file) only. */
function usedStore(path: string): CliError {
  return new CliError(
    'USAGE',
    `${path} already exists; the demo writes, decays, prunes, merges and deletes a branch in its store, so it runs only on a new path. Pick a new path for --db (e.g. --db ./agentmem-demo.db), or leave --db out to use a temporary store. Nothing was changed.`,
    2,
    { helpHint: false },
  );
}
