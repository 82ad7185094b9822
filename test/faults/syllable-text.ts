/**
 * Text for the fault trials' memories: pseudo-words of syllables, the same for every run, so no two
 * memories are near-duplicates and a trial's searches have a known answer. `seed` picks the sequence
 * (each trial its own), `syllables` the syllables a word, `words` the words a text.
 */
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vo', 'qi', 'ne', 'dar', 'po', 'li', 'zu', 'he', 'ba', 'or'];

export function syllableText(i: number, shape: { seed: number; syllables: number; words: number }): string {
  let x = (i + shape.seed) * 2_654_435_761;
  const word = () => {
    let w = '';
    for (let s = 0; s < shape.syllables; s++) {
      x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
      w += SYLLABLES[x % SYLLABLES.length];
    }
    return w;
  };
  return Array.from({ length: shape.words }, word).join(' ');
}
