import { seededRandom } from '@agentmem/core/testing';

/**
 * `count` texts of `min` to `min + span - 1` words drawn from `vocabulary`, by the random sequence of
 * `seed` (a text's length first, then its words): the same texts for the same arguments. Tests give
 * their own vocabulary and lengths.
 */
export function randomTexts(
  count: number,
  seed: number,
  vocabulary: readonly string[],
  min: number,
  span: number,
): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () =>
    Array.from(
      { length: min + Math.floor(random() * span) },
      () => vocabulary[Math.floor(random() * vocabulary.length)],
    ).join(' '),
  );
}
