import { sanitizeForPrompt } from '../prompt/sanitize';
import type { ActivatedSkill, Skill } from './skill';

export interface FormatSkillsOptions {
  /** Budget of the whole section in characters; default 4000. */
  maxChars?: number;
  /**
   * Progressive disclosure: skills that are not active, listed by name and
   * description after the active ones (so the agent knows they exist).
   * Active skills in this list are left out of it.
   */
  inactive?: readonly Pick<Skill, 'name' | 'description'>[];
  /** The line under "## Other available skills"; default: ask for one by name. */
  inactiveHint?: string;
}

export const DEFAULT_SKILLS_MAX_CHARS = 4000;
export const TRUNCATION_MARKER = '[… truncated to fit the context budget]';

/**
 * Renders active skills for the system prompt, most relevant first (the
 * order given): `## Active skills`, then `### name`, allowed tools and the
 * content. Never longer than `maxChars`: the first skill that does not fit is
 * cut with a marker, later ones are left out. Returns '' when nothing fits.
 */
export function formatForPrompt(activated: readonly ActivatedSkill[], options: FormatSkillsOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_SKILLS_MAX_CHARS;
  const heading = '## Active skills';
  let out = '';
  if (activated.length > 0) {
    out = heading;
    for (const { skill } of activated) {
      const head =
        `\n\n### ${sanitizeForPrompt(skill.name, { singleLine: true })}` +
        (skill.toolsAllowed.length > 0
          ? `\n**Allowed tools:** ${skill.toolsAllowed.map((t) => sanitizeForPrompt(t, { singleLine: true })).join(', ')}`
          : '');
      // The renderer shifts the skill's own headings below its `### name` title.
      const body = `\n\n${sanitizeForPrompt(skill.content)}`;
      if (out.length + head.length + body.length <= maxChars) {
        out += head + body;
        continue;
      }
      const room = maxChars - out.length - head.length - TRUNCATION_MARKER.length - 3;
      if (room >= 40) out += `${head}${closedCut(body, room)}\n\n${TRUNCATION_MARKER}`;
      break;
    }
    if (out === heading) out = '';
  }
  const active = new Set(activated.map((a) => a.skill.name));
  const others = (options.inactive ?? []).filter((s) => !active.has(s.name));
  if (others.length > 0) {
    let section = `${out ? '\n\n' : ''}## Other available skills\n${options.inactiveHint ?? 'Ask for one by name if the task needs it.'}`;
    let listed = 0;
    for (const s of others) {
      const line = `\n- ${sanitizeForPrompt(s.name, { singleLine: true })}${s.description ? `: ${sanitizeForPrompt(s.description, { singleLine: true })}` : ''}`;
      if (out.length + section.length + line.length > maxChars) break;
      section += line;
      listed++;
    }
    if (listed > 0) out += section;
  }
  return out;
}

/**
 * A cut can drop the fence the renderer closed; rendering the piece again
 * (idempotent otherwise) closes it, and the cut shrinks until that fits.
 */
function closedCut(body: string, room: number): string {
  let piece = sanitizeForPrompt(cut(body, room));
  for (let r = room; piece.length > room && r > 0; ) {
    r -= piece.length - room;
    piece = sanitizeForPrompt(cut(body, r));
  }
  return piece;
}

/** Cuts at a line or word boundary near `room` characters. */
function cut(text: string, room: number): string {
  const slice = text.slice(0, room);
  const nl = slice.lastIndexOf('\n');
  const at = nl > room * 0.6 ? nl : slice.lastIndexOf(' ') > room * 0.6 ? slice.lastIndexOf(' ') : room;
  return slice.slice(0, at).trimEnd();
}
