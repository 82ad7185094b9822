import { invalidInput } from '../errors';

/**
 * The constants skill activation scores with, in one place: the defaults
 * below, or a registry's own (`skillActivation: { parameters }`) for a
 * library unlike the ones they were measured on. docs/skills.md says what
 * each does; bench/skills-quality.ts --lolo tunes them on one library's
 * messages and tests them on another's.
 */
export interface ActivationParameters {
  /**
   * BM25 of the library-aware lexical relevance. Length normalisation is full
   * (b = 1): skills range from a two-line description to 10 kB rules, and a
   * long rule gathers a message's words from its body by sheer size. On
   * skills-dev's halves b = 1 raised top-1 from 82.4% / 79.2% to 86.5% / 80.2%
   * with no new unrelated activation (b = 0.5 and 0.9 were worse or equal).
   */
  bm25: { k1: number; b: number };
  /**
   * BM25 field weights. The body counts least but counts: what a rule covers
   * is in its text ("runs as root", "node_modules" for Docker). With it, top-1
   * on skills-dev went from 66% / 70% to 82% / 79% on the two halves; 0.5 kept
   * unrelated messages quietest of those tried.
   */
  fieldWeights: {
    name: number;
    keywords: number;
    description: number;
    headings: number;
    body: number;
    /** The words other skills of the library write around this skill's name (`mentionWindow`). 0 turns it off. */
    mentions: number;
  };
  /** How many terms either side of a mention of a skill's name count as words about that skill. */
  mentionWindow: number;
  /**
   * Lexical relevance is 1 - exp(-(x - lexicalFloor) / lexicalScale), x the
   * BM25 score divided by the idf of a word found in one skill only (so the
   * scale does not depend on the library's size). The floor is what counts for
   * nothing: a distinctive word or two in a heading or the body, which any
   * message can share with a long skill by chance. 1.25 since terms are
   * inflection stems: best on each half of skills-dev alone (1.1 to 1.4 tried);
   * at 1.0 unrelated messages start to activate skills.
   */
  lexicalFloor: number;
  lexicalScale: number;
  /**
   * A second lexical relevance over a skill's name, keywords and description alone, normalised by
   * their own length (same idf, floor and scale), joined to the full-text one by noisy-OR with this
   * exponent. Descriptions are the field every library writes to say when a skill applies, and in
   * the one BM25 over all fields a long body dilutes them (length normalisation is the whole
   * skill's). skills-dev, its halves and LOLO unchanged; bodies cut to 2,500 characters and Agent
   * Skills alone cut alike each find one more Agent-Skill message first ("carry it out task by task
   * and stop at checkpoints" → `executing-plans`, whose description says "review checkpoints"); no
   * style lost a message or added a false activation. 1 lost one on a half; a lower floor for it
   * (1.0, 0.75) lost more. Per-field length normalisation for the one BM25 (BM25F) instead cost
   * skills-dev top-1 0.6-3.5 points. 0 turns it off.
   */
  descriptionWeight: number;
  /**
   * idf is computed as if a library of fewer skills had this many (the others
   * without any of its words). In a small library a word most skills share
   * counts for almost nothing, though a handful of skills is no evidence that
   * it is an everyday word: the 14 Agent Skills of skills-dev alone found 66.7%
   * top-1 / 76.2% hit@3 (4 of 42 messages activated nothing) where the same
   * skills among 255 found 71.4% / 83.3%. At 20: 69.0% / 81.0% with 1 of 40
   * unrelated messages activating, and the same skills cut to 2,500 characters
   * 50.0% / 59.5% → 57.1% / 69.0% with none (at 30 and 50 more unrelated
   * messages activated). Libraries of 20 skills or more are unchanged. 0 turns
   * it off.
   */
  idfPriorSkills: number;
  /**
   * Weight of a word pair's occurrences relative to its words' ("cold start" says more than "cold" and
   * "start"). On skills-dev's halves 0.5 raised top-1 from 85.1% / 82.3% to 85.1% / 84.4%; 1.0 gave
   * 85.1% / 82.3%.
   */
  bigramWeight: number;
  /**
   * A message word that no skill of the library writes counts, at this share of a word, as the forms
   * of its family that skills do write (the same Porter stem: "concurrently" → `concurrent`,
   * `concurrency`; "validator" → `validate`). Messages from other people use other forms than a
   * library's authors. Expanding every message word instead raised false activations on skills-dev
   * to 2.5-15% (0.25 to 1), because common families (`project`) then reach every skill; for words
   * no skill writes, 0.5 and 1 added no false activation in any library style and found one more
   * message with bodies cut to 2,500 characters (top-1 72.9 → 73.5). 0 turns it off.
   */
  familyWeight: number;
  /**
   * A message word the library writes brings, at this share of a word times P(word near it), the
   * words the library writes near it (co-occurrence inside the library: within `associationWindow`
   * terms, in at least two skills, at least `associationLift` times as often as chance, the
   * `associationCount` most frequent), for the skills that do not have the message word: a skill
   * that says it otherwise is reached, one that has it is not counted twice. Only message words
   * that at most `associationMaxShare` of the skills write bring any (same quality on skills-dev's
   * styles at 0.25 as at 1, CPU p50 at 1,000 skills 0.69-0.93 → 0.61 ms). 0 turns it off.
   */
  associationWeight: number;
  associationWindow: number;
  associationCount: number;
  associationLift: number;
  associationMaxShare: number;
  /**
   * Strength of the keyword a skill did not declare: its whole name as a phrase
   * (`react query` for react-query). Single parts of a name (`next`, `three`,
   * `plans`) are everyday words too often: as keywords they lowered top-1 and
   * raised false activations on both halves of skills-dev (and, weighed by how
   * specific they are in the library, still cost the Agent Skills 4.7 points of
   * top-1), so they count through the BM25 name field only.
   */
  derivedKeywordStrength: number;
  /**
   * A skill's name used as its keyword is worth as much as the name is rare in the library: its
   * strength is `derivedKeywordStrength` × min(1, rarity / nameRarityFull), rarity = ln(N / df) / ln N
   * with df the skills whose text has the name's word (or its rarest word pair), N the library (at
   * least idfPriorSkills). `stripe` or `fastapi`, written by a skill or two, keep 1; `requests`,
   * `click`, `react`, everyday words of a code library, fire for less ("two requests at the same
   * time" is not about the requests library). At 1 (rarity itself): skills-dev unchanged, bodies cut
   * to 2,500 characters top-1 72.4 → 72.9 and hit@3 80.0 → 80.6, Cursor rules cut to 1,200 75.0 →
   * 75.8 and 78.9 → 79.7, no false activation added (0.25-0.65 changed less; 0 turns it off).
   */
  nameRarityFull: number;
  /**
   * A name of three or more parts also has its initials as a keyword (`django-rest-framework` →
   * drf, `test-driven-development` → tdd), at this share of `derivedKeywordStrength`, weighed by
   * rarity as the name is (`nameRarityFull`: initials a third of the library writes fire for
   * little). People write a long name's initials ("With DRF, should I …"), and a short skill's text
   * may never spell them. skills-dev, its halves and both sides of --lolo unchanged; Cursor rules cut
   * to 1,200 characters 77.3 / 82.0 → 78.1 / 82.8; no style lost a message or added a false
   * activation. 0 turns it off.
   */
  nameAcronyms: number;
  /** Globs claiming a file for at most N^(1-this) of N skills keep their full specificity score. */
  globRarityFull: number;
  /** Weights of the activation score (they sum to 1). */
  scoreWeights: { semantic: number; keyword: number; glob: number; importance: number };
  /** Default minimum score of a skill that no declared trigger keyword or specific glob found. */
  minScore: number;
  /**
   * Off by default (0): libraries smaller than `smallLibrarySkills` skills get a higher minimum,
   * `smallLibraryStep` more per halving of the library. In a small library a word of everyday English
   * that one skill happens to write ("reply", "release") has the idf of a library's name: samples of
   * 15 / 30 / 60 of skills-dev's skills activate something for 8 / 5 / 4% of the unrelated messages at
   * the constant 0.3 (the whole library: 0%). 120 with 0.04 brings that to 2 / 2 / 1.5% but costs
   * the real small library, the 14 Agent Skills alone, 69.0 / 83.3 → 64.3 / 76.2 (their messages are
   * everyday words); 0.02 costs the Agent Skills cut to 2,500 characters 59.5 / 76.2 → 57.1 / 69.0.
   * `npm run bench -- skills-quality --sizes`. Turn it on for a small library whose users send many
   * messages no skill is for.
   */
  smallLibrarySkills: number;
  smallLibraryStep: number;
  /**
   * Minimum score of a skill activated beside one that reached `minScore` (at most `minScore`; the gap
   * filter and `k` still apply). The minimum keeps unrelated messages quiet; once a skill passed it,
   * the message is about something the library covers, and on libraries of short skills the second
   * right skill often scores just under it (bodies cut to 2,500 characters: hit@3 85.9 → 87.5 on
   * Cursor-rule messages, 73.8 → 78.6 on Agent-Skill messages). No message that activated nothing
   * activates anything, so false activations cannot rise; skills-dev's mean activated 1.91 → 1.93.
   * 0, 0.15 and 0.2 measured alike (the gap filter binds first), 0.25 gained less; `minScore` turns
   * it off.
   */
  companionMinScore: number;
  /**
   * Default share of the top score below which skills are dropped. 0.65 (was 0.75): on libraries of
   * short skills the right one is often a close second or third (bodies cut to 2,500 characters:
   * hit@3 80.6 → 81.8; Agent Skills cut alike 69.0 → 71.4, with names weighed by rarity), top-1
   * and false activations cannot change (the filter only drops), skills-dev itself is unchanged and
   * the mean number of skills activated there goes from 1.57 to 1.87 (0.6: 2.0).
   */
  gapRatio: number;
  /**
   * With a lexical embedder (the hashing one): the cosine range mapped onto the
   * dense relevance (unrelated messages share character n-grams with 10 kB
   * rules and reach 0.25-0.35), and the weights of dense and lexical relevance
   * in the semantic signal (the hashing cosine is lexical overlap without idf,
   * so it weighs less).
   */
  lexicalSemanticRange: { floor: number; ceiling: number };
  lexicalFusionWeights: { dense: number; keyword: number };
}

/** Some of the parameters; nested groups may be given in part (`{ bm25: { k1: 0.9 } }`). */
export type ActivationParametersInput = {
  [K in keyof ActivationParameters]?: ActivationParameters[K] extends object
    ? Partial<ActivationParameters[K]>
    : ActivationParameters[K];
};

/**
 * The defaults, measured on skills-dev (241 Cursor rules and 14 Agent Skills)
 * leave-one-library-out: tuned on either library's messages, coordinate ascent
 * keeps every one of these (docs/skills.md, "Measured").
 */
export const DEFAULT_ACTIVATION_PARAMETERS: ActivationParameters = Object.freeze({
  bm25: Object.freeze({ k1: 1.2, b: 1 }),
  fieldWeights: Object.freeze({ name: 3, keywords: 2, description: 2, headings: 1, body: 0.5, mentions: 0.25 }),
  mentionWindow: 4,
  lexicalFloor: 1.25,
  lexicalScale: 1.5,
  descriptionWeight: 0.5,
  bigramWeight: 0.5,
  familyWeight: 0.5,
  associationWeight: 0.5,
  associationWindow: 4,
  associationCount: 10,
  associationLift: 2,
  associationMaxShare: 0.25,
  idfPriorSkills: 20,
  derivedKeywordStrength: 1,
  nameRarityFull: 1,
  nameAcronyms: 1,
  globRarityFull: 0.5,
  scoreWeights: Object.freeze({ semantic: 0.55, keyword: 0.25, glob: 0.15, importance: 0.05 }),
  minScore: 0.3,
  smallLibrarySkills: 0,
  smallLibraryStep: 0,
  companionMinScore: 0.2,
  gapRatio: 0.65,
  lexicalSemanticRange: Object.freeze({ floor: 0.3, ceiling: 0.6 }),
  lexicalFusionWeights: Object.freeze({ dense: 0.5, keyword: 1 }),
});

/**
 * The defaults with `input` over them, checked: every value a finite number
 * of at least 0 (k1 and the scale above 0), gapRatio at most 1, a range with
 * ceiling > floor. A bad one is INVALID_INPUT naming it.
 */
export function resolveActivationParameters(input: ActivationParametersInput | undefined): ActivationParameters {
  if (input === undefined) return DEFAULT_ACTIVATION_PARAMETERS;
  if (input === null || typeof input !== 'object') throw invalidInput('parameters must be an object of numbers.');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(DEFAULT_ACTIVATION_PARAMETERS)) {
    const given = (input as Record<string, unknown>)[key];
    if (typeof value !== 'object') {
      out[key] = given === undefined ? value : number(given, key);
      continue;
    }
    if (given !== undefined && (given === null || typeof given !== 'object'))
      throw invalidInput(`parameters.${key} must be an object such as ${JSON.stringify(value)}.`);
    const group: Record<string, number> = { ...(value as Record<string, number>) };
    for (const [field, v] of Object.entries(given ?? {})) {
      if (!(field in group))
        throw invalidInput(`parameters.${key} has no field "${field}"; it takes ${Object.keys(group).join(', ')}.`);
      group[field] = number(v, `${key}.${field}`);
    }
    out[key] = group;
  }
  for (const key of Object.keys(input))
    if (!(key in DEFAULT_ACTIVATION_PARAMETERS))
      throw invalidInput(
        `Unknown activation parameter "${key}"; known: ${Object.keys(DEFAULT_ACTIVATION_PARAMETERS).join(', ')}.`,
      );
  const p = out as unknown as ActivationParameters;
  if (p.bm25.k1 <= 0 || p.lexicalScale <= 0) throw invalidInput('parameters bm25.k1 and lexicalScale must be above 0.');
  if (p.gapRatio > 1) throw invalidInput(`parameters.gapRatio must be from 0 to 1, got ${p.gapRatio}.`);
  if (p.lexicalSemanticRange.ceiling <= p.lexicalSemanticRange.floor)
    throw invalidInput('parameters.lexicalSemanticRange needs ceiling > floor.');
  return p;
}

function number(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw invalidInput(`parameters.${name} must be a finite number of at least 0, got ${JSON.stringify(value)}.`);
  return value;
}

export const ACTIVATION_INDEX_FIELD_WEIGHTS = DEFAULT_ACTIVATION_PARAMETERS.fieldWeights;
export const LEXICAL_FLOOR = DEFAULT_ACTIVATION_PARAMETERS.lexicalFloor;
export const LEXICAL_SCALE = DEFAULT_ACTIVATION_PARAMETERS.lexicalScale;
export const GLOB_RARITY_FULL = DEFAULT_ACTIVATION_PARAMETERS.globRarityFull;
export const DERIVED_KEYWORD_STRENGTH = DEFAULT_ACTIVATION_PARAMETERS.derivedKeywordStrength;
