export { DEFAULT_SKILLS_MAX_CHARS, type FormatSkillsOptions, formatForPrompt, TRUNCATION_MARKER } from './format';
export { formatOfFile, type LoadSkillsResult, loadSkills, type ParseSkillResult, parseSkillFile } from './loader';
export {
  ACTIVATION_INDEX_FIELD_WEIGHTS,
  DERIVED_KEYWORD_STRENGTH,
  GLOB_RARITY_FULL,
  LEXICAL_FLOOR,
  LEXICAL_SCALE,
} from './activation-index';
export {
  type ActivateOptions,
  type ActivationExplanation,
  type CandidateStatus,
  LEXICAL_FUSION_WEIGHTS,
  type SkillCandidate,
  type SkillSummary,
  DEFAULT_SKILL_GAP_RATIO,
  DEFAULT_SKILL_K,
  DEFAULT_SKILL_MIN_SCORE,
  DENSE_SEMANTIC_RANGE,
  embeddingText,
  LEXICAL_SEMANTIC_RANGE,
  type LoadIntoRegistryResult,
  type RegisterResult,
  recordToSkill,
  SKILL_EMBED_CONTENT_CHARS,
  SKILL_SCORE_WEIGHTS,
  SkillRegistry,
  type SkillRegistryOptions,
  type SkillSettings,
} from './registry';
export {
  compileKeywords,
  fileTypeName,
  fileTypeNames,
  GLOB_SPECIFICITY_SCORE,
  type GlobSpecificity,
  globSpecificity,
  looksLikeFile,
  matchKeywords,
  matchTerms,
  messageTerms,
  pathForms,
  pathsInMessage,
} from './signals';
export type {
  ActivatedSkill,
  ActivationSignal,
  Skill,
  SkillFormat,
  SkillInput,
  SkillProblem,
  SkillSignals,
  SkillSource,
} from './skill';
export { DEFAULT_SKILL_IMPORTANCE, MAX_SKILL_CONTENT_LENGTH, storedSkill, validateSkillName } from './validate';
