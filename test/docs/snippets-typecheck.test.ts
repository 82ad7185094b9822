// Every ```ts block of README.md, docs/*.md and packages/*/README.md compiles against the current exports: a
// renamed option or export fails here, not in a user's editor. quickstarts.test.ts runs the quickstarts; most other
// blocks are fragments of a page (they use the page's `memory`, `model`, ...), so each gets declarations of the
// names it uses without defining them (CONTEXT below), and the providers that need a key are typed stubs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
/** Inside the repository, so that the snippets' imports resolve as in a project (.gitignore'd). */
const DIR = join(__dirname, '.run-types');
const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(ROOT, 'packages')).map((p) => `packages/${p}/README.md`),
].filter((page) => {
  try {
    readFileSync(join(ROOT, page));
    return true;
  } catch {
    return false;
  }
});

/** What a page's fragments take as given, by name: declared for a block that uses it and does not define it. */
const CONTEXT: Record<string, string> = {
  memory: "declare const memory: import('@agentmem/core').AgentMemory;",
  model:
    "declare const model: import('@ai-sdk/provider').LanguageModelV3 & import('@langchain/core/language_models/chat_models').BaseChatModel;",
  yourModel: "declare const yourModel: import('@ai-sdk/provider').LanguageModelV3;",
  chatModel: "declare const chatModel: import('@langchain/core/language_models/chat_models').BaseChatModel;",
  cheapModel: "declare const cheapModel: import('@langchain/core/language_models/chat_models').BaseChatModel;",
  summaryModel: "declare const summaryModel: import('@langchain/core/language_models/chat_models').BaseChatModel;",
  tools: 'declare const tools: never[];',
  prompt: 'declare const prompt: string;',
  session: 'declare const session: { userId: string };',
  generateText: "import { generateText } from 'ai';",
  wrapLanguageModel: "import { wrapLanguageModel } from 'ai';",
  agentMemoryMiddleware: "import { agentMemoryMiddleware } from '@agentmem/ai-sdk';",
  sessionMiddleware: "import { sessionMiddleware } from '@agentmem/ai-sdk';",
  openai: "import { openai } from '@ai-sdk/openai';",
  cohere: "import { cohere } from '@ai-sdk/cohere';",
  OpenAIEmbeddings: "import { OpenAIEmbeddings } from '@langchain/openai';",
  log: 'declare const log: ((...values: unknown[]) => void) & { warn(...values: unknown[]): void };',
  createAgentMemory: "import { createAgentMemory } from '@agentmem/core';",
  createSqliteMemory: "import { createSqliteMemory } from '@agentmem/sqlite';",
  createPostgresMemory: "import { createPostgresMemory } from '@agentmem/postgres';",
  backend: "declare const backend: import('@agentmem/core').MemoryBackend;",
  embedder: "declare const embedder: import('@agentmem/core').Embedder;",
  MyBackend:
    "import { InMemoryBackend as SomeBackend } from '@agentmem/core';\ndeclare class MyBackend extends SomeBackend {}",
  path: 'declare const path: string;',
  pg: "import pg from 'pg';",
  connectionString: 'declare const connectionString: string;',
  url: 'declare const url: string;',
  messages: "declare const messages: never[]; // the conversation as the page's runtime keeps it",
  mySummary: 'declare function mySummary(messages: unknown, previous: unknown): Promise<string>;',
  summarize:
    "declare const summarize: (input: { messages: import('@agentmem/core').ChatMessage[]; previousSummary?: string }) => Promise<string>;",
  conversation: "declare const conversation: import('@agentmem/core').ChatMessage[];",
  team: "declare const team: import('@agentmem/core').Team;",
  member: "declare const member: import('@agentmem/core').TeamMember;",
  task: 'declare const task: string;',
  message: 'declare const message: string;',
  files: 'declare const files: string[];',
  qdrantBackend: "declare const qdrantBackend: import('@agentmem/qdrant').QdrantBackend;",
};

/** Providers that need a key or are not installed here: typed as their packages type them. */
const STUBS: Record<string, string> = {
  '@ai-sdk/openai': `import type { EmbeddingModelV3, LanguageModelV3 } from '@ai-sdk/provider';
export declare const openai: ((id: string) => LanguageModelV3) & { embedding(id: string): EmbeddingModelV3 };`,
  '@ai-sdk/cohere': `import type { RerankingModelV3 } from '@ai-sdk/provider';
export declare const cohere: { reranking(id: string): RerankingModelV3 };`,
  '@langchain/openai': `import { Embeddings } from '@langchain/core/embeddings';
export declare class OpenAIEmbeddings extends Embeddings {
  constructor(fields: { model: string });
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}`,
  tiktoken: 'export declare function encoding_for_model(model: string): { encode(text: string): Uint32Array };',
};

function blocks(page: string): string[] {
  return [...readFileSync(join(ROOT, page), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** The declarations a block needs: the CONTEXT names it uses (outside comments) and does not define. */
function contextOf(code: string): string[] {
  const body = code.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  return Object.entries(CONTEXT)
    .filter(([name]) => new RegExp(`(?<![.\\w])${name}\\b`).test(body))
    .filter(
      ([name]) =>
        !new RegExp(`\\b(const|let|function|class)\\s+${name}\\b`).test(body) &&
        !new RegExp(`import[^;]*\\b${name}\\b[^;]*from`).test(body) &&
        // destructured: `const { name } =` (not `{ name: other }`, which names another)
        !new RegExp(`\\b(const|let)\\s*\\{[^}]*\\b${name}\\b(?!\\s*:)[^}]*\\}\\s*=`).test(body),
    )
    .map(([, declaration]) => declaration);
}

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

describe('documented ts snippets', () => {
  it('every ts block of the README, docs/ and the package READMEs compiles against the current exports', () => {
    rmSync(DIR, { recursive: true, force: true });
    mkdirSync(join(DIR, 'stubs'), { recursive: true });
    const paths: Record<string, string[]> = {};
    for (const [name, text] of Object.entries(STUBS)) {
      const file = `stubs/${name.replace(/[@/]/g, '_')}.d.ts`;
      writeFileSync(join(DIR, file), `${text}\n`);
      paths[name] = [`test/docs/.run-types/${file}`];
    }
    const written: string[] = [];
    for (const page of pages)
      blocks(page).forEach((code, n) => {
        const file = `${page.replace(/[/.]/g, '_')}-${n}.ts`;
        // The context first, the block as a module (top-level await, its own scope).
        writeFileSync(join(DIR, file), `${contextOf(code).join('\n')}\n${code}\nexport {};\n`);
        written.push(file);
      });
    expect(written.length).toBeGreaterThan(40); // the pages still have their snippets (a changed fence fails here)
    const root = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    writeFileSync(
      join(DIR, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../../tsconfig.json',
        compilerOptions: { baseUrl: '../../..', paths: { ...root.compilerOptions.paths, ...paths } },
        include: ['./*.ts', './stubs/*.d.ts'],
      }),
    );
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', join(DIR, 'tsconfig.json'), '--pretty', 'false'], {
        encoding: 'utf8',
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    // Each error names the block's file: <page>-<n>.ts is the n-th ts block (from 0) of that page.
    expect(output).toBe('');
  }, 240_000);
});
