/**
 * Stand-ins for the providers the documented snippets name (`@ai-sdk/openai`, `@langchain/openai`, a chat
 * model), built from the published test doubles that need no key: `ai/test`'s mock models and
 * `@langchain/core`'s fakes. quickstarts.test.ts points the snippets' imports of those providers here.
 * Every model created is kept in `created`, so a test can read what the model was given.
 */
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { FakeEmbeddings } from '@langchain/core/utils/testing';
import { MockEmbeddingModelV3, MockLanguageModelV3 } from 'ai/test';

export const created = {
  languageModels: [] as MockLanguageModelV3[],
  chatModels: [] as ReturnType<typeof fakeModel>[],
};

/**
 * Words that mean the same thing to the stand-in embedding model: a text's vector is its concepts plus a small
 * hashed residue of its other words, so "which package manager?" is near "The user prefers pnpm" without a
 * shared word, as with a real embedding model (and unlike the default HashingEmbedder).
 */
const CONCEPTS = [
  ['pnpm', 'npm', 'yarn', 'package', 'manager', 'dependencies', 'install', 'installs', 'library'],
  ['database', 'postgresql', 'postgres', 'sql'],
  ['deploy', 'deploys', 'release', 'ship'],
];
const RESIDUE = 16;
/** The size of text-embedding-3-small's vectors, which the snippets declare (the rest of each vector is zeros). */
const DIMENSION = 1536;

export function conceptVector(text: string): number[] {
  const v = new Array<number>(DIMENSION).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const concept = CONCEPTS.findIndex((words) => words.includes(word));
    if (concept >= 0) v[concept]! += 1;
    else v[CONCEPTS.length + ([...word].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % RESIDUE)]! += 0.1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** An AI SDK language model that answers "OK." and records every prompt (`doGenerateCalls`). */
export function languageModel(modelId = 'mock-chat'): MockLanguageModelV3 {
  const model = new MockLanguageModelV3({
    modelId,
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'OK.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
  });
  created.languageModels.push(model);
  return model;
}

/** An AI SDK embedding model over `conceptVector`. */
export function embeddingModel(modelId = 'mock-embedding'): MockEmbeddingModelV3 {
  return new MockEmbeddingModelV3({
    provider: 'mock',
    modelId,
    maxEmbeddingsPerCall: 100,
    // The function form: the array form answers call n with element n.
    doEmbed: async ({ values }) => ({
      embeddings: values.map(conceptVector),
      usage: { tokens: values.length },
      warnings: [],
    }),
  });
}

/** `@ai-sdk/openai`'s `openai`: `openai(id)` a language model, `openai.embedding(id)` an embedding model. */
export const openai = Object.assign((modelId: string) => languageModel(modelId), {
  embedding: embeddingModel,
  textEmbeddingModel: embeddingModel,
});

/** `@langchain/openai`'s `OpenAIEmbeddings`: LangChain's FakeEmbeddings, answering with `conceptVector`. */
export class OpenAIEmbeddings extends FakeEmbeddings {
  readonly model: string;
  constructor(fields: { model?: string } = {}) {
    super();
    this.model = fields.model ?? 'text-embedding-3-small';
  }
  override async embedDocuments(documents: string[]): Promise<number[][]> {
    return documents.map(conceptVector);
  }
  override async embedQuery(document: string): Promise<number[]> {
    return conceptVector(document);
  }
}

/** A LangChain chat model for `createAgent`: answers `reply` and records every call (`calls`). */
export function chatModel(reply = 'OK.') {
  const model = fakeModel().respond(() => new AIMessage(reply));
  created.chatModels.push(model);
  return model;
}
