import { AgentMemoryError, type Embedder, HashingEmbedder, importOptional, invalidInput } from '@agentmem/core';
import { InvalidArgumentError } from 'commander';

// A variable, so that bundlers leave the optional package out.
const COHERE_PACKAGE = '@agentmem/cohere';
type CohereModule = typeof import('@agentmem/cohere');

export const EMBEDDER_FORMS =
  '`hashing` (the default, 384 dimensions), `hashing:<dimension>`, or `cohere:<model>[:<dimension>]`';

type EmbedderSpec = { kind: 'hashing'; dimension?: number } | { kind: 'cohere'; model: string; dimension?: number };

/** The forms `--embedder` takes (also the ids stores record), or undefined for none of them. */
function embedderSpec(id: string): EmbedderSpec | undefined {
  if (id === 'hashing') return { kind: 'hashing' };
  const hashing = /^(?:hashing|agentmem\/hashing-v1):(\d+)$/.exec(id);
  if (hashing) return { kind: 'hashing', dimension: Number(hashing[1]) };
  const cohere = /^cohere:([\w.-]+)(?::(\d+))?$/.exec(id);
  if (cohere)
    return { kind: 'cohere', model: cohere[1]!, dimension: cohere[2] === undefined ? undefined : Number(cohere[2]) };
  return undefined;
}

/**
 * The embedder `--embedder` names, by the id a store records (so the id in an
 * EMBEDDER_MISMATCH error can be passed back as is); undefined: the default.
 * Cohere reads its key from CO_API_KEY and, for a proxy or test server, its
 * base URL from AGENTMEM_COHERE_URL.
 */
export async function embedderFor(spec: string | undefined): Promise<Embedder | undefined> {
  if (spec === undefined || spec.trim() === '') return undefined;
  const id = spec.trim();
  const parsed = embedderSpec(id);
  if (!parsed) throw invalidInput(`Unknown --embedder ${JSON.stringify(id)}. Use ${EMBEDDER_FORMS}.`);
  if (parsed.kind === 'hashing') return new HashingEmbedder({ dimension: parsed.dimension });
  const { model, dimension } = parsed;
  const { cohereEmbedder } = await importOptional(
    () => import(COHERE_PACKAGE) as Promise<CohereModule>,
    `--embedder ${id} needs the Cohere adapter: run \`npm i @agentmem/cohere\` (and set CO_API_KEY).`,
  );
  return cohereEmbedder({
    model,
    // embed-v4 returns the size it is asked for; other models have one size, needed only for unknown ones.
    ...(dimension === undefined ? {} : model.startsWith('embed-v4') ? { outputDimension: dimension } : { dimension }),
    ...(process.env.AGENTMEM_COHERE_URL ? { baseUrl: process.env.AGENTMEM_COHERE_URL } : {}),
  });
}

/**
 * A Cohere `--embedder` without CO_API_KEY, said before the store is opened (so a new --db is not
 * created) and before any request: the adapter could only say so at the first embedding.
 */
export function missingCohereKey(spec: string | undefined): AgentMemoryError | undefined {
  const id = spec?.trim();
  if (!id || embedderSpec(id)?.kind !== 'cohere' || process.env.CO_API_KEY) return undefined;
  return new AgentMemoryError(
    'AUTHENTICATION',
    `--embedder ${id} needs a Cohere API key and CO_API_KEY is not set: export CO_API_KEY=<your key> (keys are at dashboard.cohere.com/api-keys) and run the command again. Nothing was opened or sent.`,
  );
}

/**
 * Option parser of `--embedder` (and AGENTMEM_EMBEDDER): a value none of the
 * forms can name is a usage error before anything is opened.
 */
export function parseEmbedder(value: string): string {
  const id = value.trim();
  if (id === '') return id;
  const parsed = embedderSpec(id);
  if (!parsed) throw new InvalidArgumentError(`Use ${EMBEDDER_FORMS}.`);
  const dimension = parsed.kind === 'hashing' ? parsed.dimension : undefined;
  // HashingEmbedder's range, said as a usage error before anything is opened.
  if (dimension !== undefined && (dimension < 16 || dimension > 65536)) {
    throw new InvalidArgumentError(`hashing:<dimension> takes a dimension from 16 to 65536, got ${dimension}.`);
  }
  return id;
}

/** True when `--embedder` names the default (nothing, `hashing`, or the default's own id and dimension). */
export async function isDefaultEmbedder(spec: string | undefined): Promise<boolean> {
  const embedder = await embedderFor(spec);
  return (
    embedder === undefined ||
    (embedder instanceof HashingEmbedder && embedder.dimension === new HashingEmbedder().dimension)
  );
}
