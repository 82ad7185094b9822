import { type Embedder, HashingEmbedder, importOptional, invalidInput } from '@agentmem/core';
import { InvalidArgumentError } from 'commander';

// A variable, so that bundlers leave the optional package out.
const COHERE_PACKAGE = '@agentmem/cohere';
type CohereModule = typeof import('@agentmem/cohere');

export const EMBEDDER_FORMS =
  '`hashing` (the default, 384 dimensions), `hashing:<dimension>`, or `cohere:<model>[:<dimension>]`';

/**
 * The embedder `--embedder` names, by the id a store records (so the id in an
 * EMBEDDER_MISMATCH error can be passed back as is); undefined: the default.
 * Cohere reads its key from CO_API_KEY and, for a proxy or test server, its
 * base URL from AGENTMEM_COHERE_URL.
 */
export async function embedderFor(spec: string | undefined): Promise<Embedder | undefined> {
  if (spec === undefined || spec.trim() === '') return undefined;
  const id = spec.trim();
  if (id === 'hashing') return new HashingEmbedder();
  const hashing = /^(?:hashing|agentmem\/hashing-v1):(\d+)$/.exec(id);
  if (hashing) return new HashingEmbedder({ dimension: Number(hashing[1]) });
  const cohere = /^cohere:([\w.-]+)(?::(\d+))?$/.exec(id);
  if (cohere) {
    const [, model, dims] = cohere;
    const { cohereEmbedder } = await importOptional(
      () => import(COHERE_PACKAGE) as Promise<CohereModule>,
      `--embedder ${id} needs the Cohere adapter: run \`npm i @agentmem/cohere\` (and set CO_API_KEY).`,
    );
    const dimension = dims === undefined ? undefined : Number(dims);
    return cohereEmbedder({
      model,
      // embed-v4 returns the size it is asked for; other models have one size, needed only for unknown ones.
      ...(dimension === undefined
        ? {}
        : model!.startsWith('embed-v4')
          ? { outputDimension: dimension }
          : { dimension }),
      ...(process.env.AGENTMEM_COHERE_URL ? { baseUrl: process.env.AGENTMEM_COHERE_URL } : {}),
    });
  }
  throw invalidInput(`Unknown --embedder ${JSON.stringify(id)}. Use ${EMBEDDER_FORMS}.`);
}

/**
 * Option parser of `--embedder` (and AGENTMEM_EMBEDDER): a value none of the
 * forms can name is a usage error before anything is opened.
 */
export function parseEmbedder(value: string): string {
  const id = value.trim();
  const hashing = /^(?:hashing|agentmem\/hashing-v1):(\d+)$/.exec(id);
  if (hashing) {
    const dimension = Number(hashing[1]);
    if (dimension < 16 || dimension > 65536) {
      throw new InvalidArgumentError(`hashing:<dimension> takes a dimension from 16 to 65536, got ${dimension}.`);
    }
    return id;
  }
  if (id === '' || id === 'hashing' || /^cohere:[\w.-]+(?::\d+)?$/.test(id)) return id;
  throw new InvalidArgumentError(`Use ${EMBEDDER_FORMS}.`);
}

/** True when `--embedder` names the default (nothing, `hashing`, or the default's own id and dimension). */
export async function isDefaultEmbedder(spec: string | undefined): Promise<boolean> {
  const embedder = await embedderFor(spec);
  return (
    embedder === undefined ||
    (embedder instanceof HashingEmbedder && embedder.dimension === new HashingEmbedder().dimension)
  );
}
