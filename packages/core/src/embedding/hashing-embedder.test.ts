import { describe, expect, it } from 'vitest';
import { STOPWORDS, stem, words } from '../text';
import { fnv1a } from './fnv';
import { HashingEmbedder, type HashingEmbedderOptions } from './hashing-embedder';
import { l2Normalize } from './vector-math';

/**
 * The embedder's definition, written plainly: every feature a string in one map, in first-seen
 * order. Stored memories keep the vectors they were written with, so the embedder must give these
 * exact floats however it computes them.
 */
function reference(text: string, options: HashingEmbedderOptions = {}): Float32Array {
  const dimension = options.dimension ?? 384;
  const bigramWeight = options.bigramWeight ?? 0.5;
  const charWeight = options.charWeight ?? 0.4;
  const n = options.charNgram ?? 4;
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  const kept = words(text).filter((w) => !STOPWORDS.has(w));
  const terms = kept.map(stem);
  for (let i = 0; i < terms.length; i++) {
    add(`w:${terms[i]}`, 1);
    if (bigramWeight > 0 && i + 1 < terms.length) add(`b:${terms[i]} ${terms[i + 1]}`, bigramWeight);
  }
  if (charWeight > 0) {
    for (const w of kept) {
      const padded = `^${w}$`;
      for (let i = 0; i + n <= padded.length; i++) add(`c:${padded.slice(i, i + n)}`, charWeight);
    }
  }
  const v = new Float32Array(dimension);
  for (const [feature, weight] of counts) {
    const sign = (fnv1a(feature, 0x9e3779b1) & 1) === 0 ? 1 : -1;
    v[fnv1a(feature) % dimension]! += sign * Math.log1p(weight);
  }
  return l2Normalize(v);
}

const texts = [
  'Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted.',
  'The deploy failed twice: the migration timed out, then the health check did.',
  'test test test testing tested tests',
  'Café crème, naïve façade, Straße, Ærøskøbing and ŒUVRE in one line',
  'Ελληνικά κείμενα και кириллица вместе',
  '日本語のテキストと中文文本 mixed with English words',
  'emoji 🚀 launches 🚀 again, and a zero-width\u200bjoiner',
  "it's the user’s choice: don't over-think",
  'a',
  '',
  '   ',
  'x'.repeat(300),
  // One word, two words, a stop word between and around them: the bigrams' pairs and the last word.
  'deploys',
  'deploys failed',
  'the deploys of the migration and',
];

describe('HashingEmbedder', () => {
  const optionSets: HashingEmbedderOptions[] = [
    {},
    { charNgram: 2 },
    { charNgram: 3, dimension: 64 },
    { charNgram: 5 },
    { charNgram: 8, bigramWeight: 0 },
    { charWeight: 0 },
    { dimension: 1000, bigramWeight: 1, charWeight: 1 },
  ];

  it.each(optionSets)('gives the exact floats of its definition (%o)', async (options) => {
    const embedder = new HashingEmbedder(options);
    const { embeddings } = await embedder.embed(texts);
    for (const [i, text] of texts.entries()) {
      const want = reference(text, options);
      expect(embedder.embedOne(text)).toEqual(want);
      expect(embeddings[i]).toEqual(want);
    }
  });

  it('returns each vector of a batch as its own array of `dimension` floats', async () => {
    const embedder = new HashingEmbedder({ dimension: 32 });
    const { embeddings } = await embedder.embed(['first text', 'second text', 'third one']);
    expect(embeddings.map((v) => v.length)).toEqual([32, 32, 32]);
    const second = Float32Array.from(embeddings[1]!);
    embeddings[0]!.fill(7);
    embeddings[2]!.fill(-7);
    expect(embeddings[1]).toEqual(second);
  });
});
