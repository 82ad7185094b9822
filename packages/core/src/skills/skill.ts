import type { JsonObject } from '../contracts';

/** Where a skill file came from: our own format or one people already have. */
export type SkillFormat = 'agentmem' | 'agent-skills' | 'claude-rules' | 'cursor-rules';

export interface SkillSource {
  path: string;
  format: SkillFormat;
}

/**
 * Markdown instructions an agent should follow only when the task calls for
 * them (DESIGN §4). Stored in the `_skills` namespace, shared by every tenant
 * unless the registry is per tenant (`shared: false`).
 */
export interface Skill {
  specificationVersion: 'v1';
  /** Unique in the registry; registering the same name again replaces the skill. */
  name: string;
  description: string;
  /** The instructions (Markdown). */
  content: string;
  /** micromatch patterns matched against file paths (full path and basename). */
  globPatterns: string[];
  /** Whole words or phrases that fire the keyword signal. */
  triggerKeywords: string[];
  toolsAllowed: string[];
  /** 0..1, default 0.7; 5% of the activation score. */
  importance: number;
  tags: string[];
  /** Active for every message. */
  alwaysApply: boolean;
  /** Fields of the source file agentmem does not interpret, kept as they were. */
  metadata: JsonObject;
  source?: SkillSource;
  /** sha256 of the fields above: registering an identical skill changes nothing. */
  contentHash: string;
  createdAt: string;
  updatedAt: string;
}

/** What `register` takes: `name` and `content` are required. */
export interface SkillInput {
  name: string;
  content: string;
  description?: string;
  globPatterns?: readonly string[];
  triggerKeywords?: readonly string[];
  toolsAllowed?: readonly string[];
  importance?: number;
  tags?: readonly string[];
  alwaysApply?: boolean;
  metadata?: JsonObject;
  source?: SkillSource;
}

/** A file the loader could not read, or read with a caveat. */
export interface SkillProblem {
  path: string;
  /** 1-based line in the file, where known. */
  line?: number;
  /**
   * `error`: the file was skipped; `warning`: it loaded, with the caveat in `reason`; `skipped`: not a
   * skill (plain Markdown found by `load('.')`), left out on purpose.
   */
  severity: 'error' | 'warning' | 'skipped';
  reason: string;
}

export type ActivationSignal = 'semantic' | 'keyword' | 'glob';

export interface SkillSignals {
  /**
   * Absolute semantic relevance 0..1 (0: unrelated): the dense confidence (cosine mapped onto the
   * semantic range) and the library-aware lexical relevance (BM25 over name, keywords, description and
   * headings), fused. `cosine` is the raw similarity.
   */
  semantic?: {
    score: number;
    cosine: number;
    dense?: number;
    lexical?: number;
    denseRank?: number;
    keywordRank?: number;
  };
  /** The keywords found in the message: declared by the skill, or derived from its name when it declares none. */
  keyword?: { score: number; matched: string[]; source?: 'declared' | 'derived' };
  /**
   * The paths that matched, and the patterns they matched. `score` is the evidence of the most
   * specific match: a catch-all (`**\/*`) is none, an extension-only glob half, a path-specific one full.
   */
  glob?: {
    score: number;
    paths: string[];
    patterns: string[];
    /**
     * Each file and what claimed it. `byName`: no glob but the skill's name, which names the file's
     * type (`bash` for `deploy.sh`, `pdf` for `invoice.pdf`); `pattern` is then the name, and it
     * counts as an extension-only glob.
     */
    matches?: { path: string; pattern: string; specificity: 'catch-all' | 'extension' | 'path'; byName?: true }[];
  };
}

export interface ActivatedSkill {
  skill: Skill;
  /** Weighted sum of the signals and importance (see docs/skills.md). */
  score: number;
  /** What made it active: one signal, several (`combined`), or `alwaysApply`. */
  activatedBy: ActivationSignal | 'combined' | 'always';
  /** The signals that fired (a signal that did not fire is absent). */
  signals: SkillSignals;
}
