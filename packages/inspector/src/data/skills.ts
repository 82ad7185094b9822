import {
  type ActivatedSkill,
  DEFAULT_SKILL_GAP_RATIO,
  DEFAULT_SKILL_K,
  DEFAULT_SKILL_MIN_SCORE,
  SKILL_SCORE_WEIGHTS,
  type Skill,
  type SkillSignals,
} from '@agentmem/core';
import type { Stores } from '../stores';

export interface SkillRow {
  name: string;
  description: string;
  format: string;
  path: string | null;
  globs: string[];
  keywords: string[];
  alwaysApply: boolean;
  importance: number;
}

function toRow(skill: Skill): SkillRow {
  return {
    name: skill.name,
    description: skill.description,
    format: skill.source?.format ?? 'agentmem',
    path: skill.source?.path ?? null,
    globs: skill.globPatterns,
    keywords: skill.triggerKeywords,
    alwaysApply: skill.alwaysApply,
    importance: skill.importance,
  };
}

export async function listSkills(stores: Stores, tenant?: string): Promise<SkillRow[]> {
  return (await (await stores.read({ tenant })).skills.list()).map(toRow);
}

export interface SkillVerdict {
  name: string;
  activated: boolean;
  score: number;
  signals: SkillSignals;
  activatedBy?: ActivatedSkill['activatedBy'];
  /** Why it did not activate (absent when it did). */
  reason?: string;
}

export interface SkillActivation {
  message: string;
  files: string[];
  rules: { k: number; minScore: number; gapRatio: number; weights: typeof SKILL_SCORE_WEIGHTS };
  verdicts: SkillVerdict[];
}

/**
 * Every skill's signals for one message, which activated and why the others
 * did not. Uses only `skills.activate`: once with the defaults (what an agent
 * gets), once with every filter open (each skill's signals and score).
 */
export async function explainSkills(
  stores: Stores,
  input: { message: string; files?: string[]; tenant?: string },
): Promise<SkillActivation> {
  const registry = (await stores.read({ tenant: input.tenant })).skills;
  const files = (input.files ?? []).filter((f) => f.trim() !== '');
  const message = input.message ?? '';
  const all = await registry.list();
  const options = files.length > 0 ? { filePath: files } : {};
  const chosen = await registry.activate(message, options);
  const open = await registry.activate(message, { ...options, k: all.length, minScore: -1, gapRatio: 0 });
  const activated = new Map(chosen.map((a) => [a.skill.name, a]));
  const scored = new Map(open.map((a) => [a.skill.name, a]));
  const rules = {
    k: DEFAULT_SKILL_K,
    minScore: DEFAULT_SKILL_MIN_SCORE,
    gapRatio: DEFAULT_SKILL_GAP_RATIO,
    weights: SKILL_SCORE_WEIGHTS,
  };
  // The best candidate that passed the minimum: the gap filter is relative to it.
  const passing = open.filter(
    (a) => !a.skill.alwaysApply && (a.score >= rules.minScore || a.signals.keyword || a.signals.glob),
  );
  const top = Math.max(0, ...passing.map((a) => a.score));
  const verdicts = all.map((skill): SkillVerdict => {
    const hit = activated.get(skill.name);
    if (hit) {
      return {
        name: skill.name,
        activated: true,
        score: hit.score,
        signals: hit.signals,
        activatedBy: hit.activatedBy,
      };
    }
    const candidate = scored.get(skill.name);
    const score = candidate?.score ?? SKILL_SCORE_WEIGHTS.importance * skill.importance;
    const signals = candidate?.signals ?? {};
    return { name: skill.name, activated: false, score, signals, reason: whyNot(candidate, rules, top) };
  });
  verdicts.sort((a, b) => Number(b.activated) - Number(a.activated) || b.score - a.score || (a.name < b.name ? -1 : 1));
  return { message, files, rules, verdicts };
}

function whyNot(
  candidate: ActivatedSkill | undefined,
  rules: { k: number; minScore: number; gapRatio: number },
  top: number,
): string {
  if (!candidate)
    return 'No signal fired (no semantic match, trigger keyword or matching glob); importance alone never activates a skill.';
  const s = candidate.signals;
  const fmt = (x: number) => x.toFixed(3);
  if (!s.keyword && !s.glob && candidate.score < rules.minScore) {
    return `Semantic match only, and its score ${fmt(candidate.score)} is below the minimum ${rules.minScore}.`;
  }
  if (candidate.score < top * rules.gapRatio) {
    return `Score ${fmt(candidate.score)} is below ${rules.gapRatio} × the best candidate's ${fmt(top)} (gap filter).`;
  }
  return `Passed the filters but ${rules.k} better-scoring skills took the k=${rules.k} places.`;
}
