// The quickstarts of README.md, packages/*/README.md and docs/*.md, run as written with the default setup, and
// what they print compared with the `// → …` comments beside them: the output a user sees is the one documented.
// Only what needs a key or a server is replaced, each by name below: `@ai-sdk/openai` and `@langchain/openai`
// by ./doubles (ai/test's mock models, @langchain/core's fakes), `yourModel` / `chatModel` by those doubles,
// Cohere's API by the fake Cohere server, Qdrant by the fake Qdrant, PostgreSQL by the tests' PGlite server.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import { tableNames } from '@agentmem/postgres';
import type { BaseMessage } from '@langchain/core/messages';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { runCli } from '../cli/run-cli';
import { FakeCohereServer } from '../cohere/fake-cohere-server';
import { waitForServer } from '../postgres/helpers';
import { FakeQdrant } from '../qdrant/fake-qdrant';
import { qdrantSpecAvailable, SPEC_MISSING } from '../qdrant/spec';
import { created } from './doubles';

const ROOT = join(__dirname, '../..');
/** Where snippets are written to run: inside the repository, so that their imports resolve as in a project. */
const RUN = join(__dirname, '.run');
const DOUBLES = '../doubles';

const read = (doc: string) => readFileSync(join(ROOT, doc), 'utf8');

/** The `n`-th ```ts block of a document. */
function snippet(doc: string, n = 0): string {
  const blocks = [...read(doc).matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  if (blocks[n] === undefined) throw new Error(`${doc} has no ts block number ${n}`);
  return blocks[n]!;
}

/** What a snippet says it prints: its `// → …` comments, in order. */
function documentedOutput(code: string): string[] {
  return [...code.matchAll(/\/\/ → (.*)$/gm)].map((m) => m[1]!.trim());
}

/** Replaces each `from` (which must be there: a changed doc fails here, not silently). */
function edit(code: string, replacements: readonly [string, string][]): string {
  let out = code;
  for (const [from, to] of replacements) {
    if (!out.includes(from)) throw new Error(`The snippet no longer contains ${JSON.stringify(from)}`);
    out = out.split(from).join(to);
  }
  return out;
}

let runs = 0;
let cwd: string;

/** Runs a snippet as a module with `cwd` as the working directory; returns what it printed, one entry per console.log. */
async function run(code: string, options: { prelude?: string; replace?: [string, string][] } = {}): Promise<string[]> {
  mkdirSync(RUN, { recursive: true });
  const file = join(RUN, `snippet-${process.pid}-${++runs}.ts`);
  writeFileSync(file, `${options.prelude ?? ''}\n${edit(code, options.replace ?? [])}\nexport {};\n`);
  const printed: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    printed.push(format(...args));
  });
  const home = process.cwd();
  process.chdir(cwd);
  try {
    await import(file);
  } finally {
    process.chdir(home);
    log.mockRestore();
  }
  return printed;
}

/** The documented output, with `PORT` and `…` standing for any port and any text. */
function matches(printed: string[], documented: string[]) {
  expect(printed).toHaveLength(documented.length);
  documented.forEach((line, i) => {
    const pattern = line
      .split(/(PORT|…)/)
      .map((part) => (part === 'PORT' ? '\\d+' : part === '…' ? '.+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    expect(printed[i]).toMatch(new RegExp(`^${pattern}$`));
  });
}

/** `yourModel` (any AI SDK model) and `chatModel` (any LangChain chat model) of the README. */
const withModels = `import { languageModel, chatModel as fakeChatModel } from '${DOUBLES}';
const yourModel = languageModel();
const chatModel = fakeChatModel();`;
/** `model`, `cheapModel` and `tools` of docs/langchain.md. */
const withAgentParts = `import { chatModel as fakeChatModel } from '${DOUBLES}';
const model = fakeChatModel();
const cheapModel = fakeChatModel('{"facts":[]}'); // the extraction model: no facts to store
const tools = [];`;
const OPENAI: [string, string] = ["from '@ai-sdk/openai'", `from '${DOUBLES}'`];

/** The system prompt the last AI SDK double received, and the system messages the last LangChain double did. */
function lastSystemPrompt(): string {
  const [message] = created.languageModels.at(-1)?.doGenerateCalls.at(-1)?.prompt ?? [];
  return message?.role === 'system' ? message.content : '';
}
function lastChatSystem(): string {
  const messages = (created.chatModels.at(-1)?.calls.at(-1)?.messages ?? []) as BaseMessage[];
  return messages
    .filter((m) => m.getType() === 'system')
    .map((m) => String(m.content))
    .join('\n');
}

beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'agentmem-quickstart-'));
});
// A snippet that timed out may still hold the process in its folder: leave it first, or every later test fails
// on process.cwd() (ENOENT) instead of the one that timed out.
afterEach(() => {
  process.chdir(ROOT);
  rmSync(cwd, { recursive: true, force: true });
});
afterAll(() => rmSync(RUN, { recursive: true, force: true }));

describe('README.md', () => {
  it('the tour prints what its comments say, and runs a second time on the same files', async () => {
    const tour = snippet('README.md', 0);
    const documented = documentedOutput(tour);
    expect(documented.length).toBeGreaterThanOrEqual(4);
    for (const round of [1, 2]) {
      const printed = await run(tour, { prelude: withModels });
      expect(printed, `run ${round}`).toEqual(documented);
      // The models got the block: what the comment next to generateText says the model reads.
      const line = /the model reads "(.+)"/.exec(tour)![1]!;
      expect(lastSystemPrompt()).toContain(line);
      expect(lastChatSystem()).toContain(line);
    }
  });

  it('"plug a real embedder": an embedding model finds by meaning what the default embedder cannot', async () => {
    const code = snippet('README.md', 1);
    matches(await run(code, { replace: [OPENAI] }), documentedOutput(code));
    // The comment's claim: without the embedder line (HashingEmbedder), the same query finds nothing.
    const hashing = edit(code, [
      ["  embedder: aiSdkEmbedder(openai.embedding('text-embedding-3-small'), { dimension: 1536 }),\n", ''],
      ['.agentmem/semantic.db', '.agentmem/hashing.db'],
    ]);
    expect(await run(hashing, { replace: [OPENAI] })).toEqual(['undefined']);
  });

  it("the embedder table's expressions build working embedders", async () => {
    const table = read('README.md').slice(read('README.md').indexOf('| embedder | package | in code |'));
    const rows = [...table.split('\n\n')[0]!.matchAll(/^\| (.+?) \| `(@agentmem\/[\w-]+)` \| `(.+)` \|$/gm)];
    expect(rows.map((r) => r[2])).toEqual(['@agentmem/ai-sdk', '@agentmem/cohere', '@agentmem/langchain']);
    const cohere = await new FakeCohereServer().start();
    vi.stubEnv('CO_API_KEY', 'test-key');
    try {
      for (const [, , pkg, expression] of rows) {
        const printed = await run(
          `import { aiSdkEmbedder } from '@agentmem/ai-sdk';
import { cohereEmbedder } from '@agentmem/cohere';
import { createAgentMemory, InMemoryBackend } from '@agentmem/core';
import { langchainEmbedder } from '@agentmem/langchain';
import { openai, OpenAIEmbeddings } from '${DOUBLES}';
const embedder = ${expression!.replace('cohereEmbedder({ ', `cohereEmbedder({ baseUrl: '${cohere.url}', `)};
const memory = await createAgentMemory({ backend: new InMemoryBackend(), embedder });
await memory.rememberMany([{ content: 'The user prefers pnpm', type: 'user' }, { content: 'The staging database is PostgreSQL 16', type: 'project' }]);
const [hit] = await memory.recall('which package manager?');
console.log(memory.embedder.id);
console.log(hit?.memory.content);`,
        );
        expect(printed[0], pkg).toMatch(/^(ai-sdk:mock:text-embedding-3-small|cohere:embed-v4\.0:1024|langchain:.+)$/);
        // The stand-ins for OpenAI match meaning; the fake Cohere server's vectors mean nothing (only the call is checked).
        if (pkg !== '@agentmem/cohere') expect(printed[1], pkg).toBe('The user prefers pnpm');
      }
      expect(cohere.requests.length).toBeGreaterThan(0);
    } finally {
      vi.unstubAllEnvs();
      await cohere.stop();
    }
  });
});

describe('packages/*/README.md', () => {
  it('@agentmem/core prints the memory, and its note holds: other words find nothing with the default embedder', async () => {
    const code = snippet('packages/core/README.md');
    expect(await run(code)).toEqual(documentedOutput(code));
    const otherWords = edit(code, [
      ["recall('which package manager does the user prefer?')", "recall('which package manager?')"],
    ]);
    expect(await run(otherWords)).toEqual(['undefined']);
  });

  it('@agentmem/sqlite prints the memory', async () => {
    const code = snippet('packages/sqlite/README.md');
    expect(await run(code)).toEqual(documentedOutput(code));
  });

  it('@agentmem/ai-sdk: the model gets the memory in its system prompt', async () => {
    const code = snippet('packages/ai-sdk/README.md');
    await run(code, { replace: [OPENAI] });
    expect(lastSystemPrompt()).toContain(/system prompt held "(.+)"/.exec(code)![1]);
  });

  it('@agentmem/langchain: the agent model gets the memory in its system prompt', async () => {
    const code = snippet('packages/langchain/README.md');
    await run(code, { prelude: withModels, replace: [["model: 'openai:gpt-4o'", 'model: chatModel']] });
    expect(lastChatSystem()).toContain(/system prompt held "(.+)"/.exec(code)![1]);
  });

  it('@agentmem/cohere opens a store with the Cohere embedder', async () => {
    const cohere = await new FakeCohereServer().start();
    vi.stubEnv('CO_API_KEY', 'test-key');
    try {
      await run(snippet('packages/cohere/README.md'), {
        replace: [['cohereEmbedder({ ', `cohereEmbedder({ baseUrl: '${cohere.url}', `]],
      });
    } finally {
      vi.unstubAllEnvs();
      await cohere.stop();
    }
  });

  it('@agentmem/inspector prints its URL', async () => {
    const code = snippet('packages/inspector/README.md');
    matches(await run(code), documentedOutput(code));
  });

  it.skipIf(!qdrantSpecAvailable)(
    `@agentmem/qdrant prints the memory${qdrantSpecAvailable ? '' : ` (${SPEC_MISSING})`}`,
    async () => {
      const qdrant = await FakeQdrant.start();
      try {
        const code = snippet('packages/qdrant/README.md');
        expect(await run(code, { replace: [["'http://localhost:6333'", `'${qdrant.url}'`]] })).toEqual(
          documentedOutput(code),
        );
      } finally {
        await qdrant.stop();
      }
    },
  );

  it('@agentmem/postgres prints the memory', async () => {
    const url = inject('pgliteUrl');
    await waitForServer(url);
    vi.stubEnv('DATABASE_URL', url);
    const drop = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { records, meta, migrations } = tableNames();
      for (const table of [records, meta, migrations]) await client.query(`DROP TABLE IF EXISTS ${table} CASCADE`);
      await client.end();
    };
    try {
      await drop();
      const code = snippet('packages/postgres/README.md');
      expect(await run(code)).toEqual(documentedOutput(code));
    } finally {
      vi.unstubAllEnvs();
      await drop();
    }
    // PGlite answers on one thread: on a loaded machine the snippet's first connections took past 30 s.
  }, 90_000);

  it('@agentmem/cli: the recall line finds what the remember line stored', async () => {
    const lines = /```sh\n([\s\S]*?)```/g
      .exec(read('packages/cli/README.md').split('```sh\nnpm i -D @agentmem/cli\n```')[1]!)![1]!
      .split('\n')
      .filter((l) => /^npx agentmem (remember|recall) /.test(l))
      .map((l) => [...l.replace('npx agentmem ', '').matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!));
    const db = join(cwd, 'memory.db');
    const [remember, recall] = lines;
    expect((await runCli(['--db', db, ...remember!])).code).toBe(0);
    const found = await runCli(['--db', db, ...recall!]);
    expect(found.stdout).toContain(remember![1]);
  });
});

describe('docs/*.md', () => {
  it('docs/ai-sdk.md: the system prompt is the block shown under the call', async () => {
    const doc = read('docs/ai-sdk.md');
    await run(snippet('docs/ai-sdk.md'), { replace: [OPENAI] });
    const shown = /The model's system prompt, for the call above:\n\n```\n([\s\S]*?)```/.exec(doc)![1]!.trim();
    const pattern = shown
      .split('...')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^\\n]*');
    expect(lastSystemPrompt()).toMatch(new RegExp(`^${pattern}$`));
  });

  it('docs/teleport.md prints the diff and merge summaries it shows', async () => {
    const code = snippet('docs/teleport.md');
    expect(await run(code)).toEqual(documentedOutput(code));
  });

  it('docs/langchain.md: a LangGraph graph compiled with the store finds what was put in it', async () => {
    const code = snippet('docs/langchain.md', 1);
    expect(code).toContain('.compile({ store })');
    expect(await run(code)).toEqual(documentedOutput(code));
  });

  it.each([
    ['docs/core.md', ''],
    ['docs/sqlite.md', ''],
    ['docs/swarm.md', ''],
    ['docs/langchain.md', withAgentParts],
  ])('%s: the first snippet runs', async (doc, prelude) => {
    await run(snippet(doc), { prelude });
  });
});
