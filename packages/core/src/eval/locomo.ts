import { invalidInput } from '../errors';
import { type EvalCase, type EvalSuite, emptyCase } from './eval-suite';

/**
 * The LoCoMo format (ACL 2024, `locomo10.json`): a JSON array of samples,
 * each a conversation in sessions (`session_<n>` with `session_<n>_date_time`)
 * of turns (`speaker`, `dia_id`, `text`, optional `blip_caption`) and `qa`
 * items (`question`, `evidence` dia ids, `category` 1-5).
 */
export const LOCOMO_CATEGORY_NAMES: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

export interface LocomoTurn {
  diaId: string;
  /** `Speaker: text`, plus the caption of a shared image (the turn as the other speaker saw it). */
  content: string;
  speaker: string;
  /** The text with the caption of a shared image. */
  text: string;
  /** Session number (1-based) and its start time (ISO, read as UTC). */
  session: number;
  sessionAt?: string;
}

export interface LocomoQuestion {
  question: string;
  /** Cleaned evidence dia_ids that exist in the conversation (never empty). */
  evidence: string[];
  category: number;
}

export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
  /** Questions left out because no usable evidence remained. */
  skipped: number;
  /** Evidence ids dropped because no such turn exists. */
  missingEvidence: string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** `"1:56 pm on 8 May, 2023"` as ISO (UTC); undefined when it does not parse. */
export function parseLocomoDate(raw: unknown): string | undefined {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(String(raw).trim());
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[5]!.slice(0, 3).toLowerCase());
  if (month < 0) return undefined;
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/**
 * Evidence strings as annotated, cleaned: `"D8:6; D9:17"` and `"D9:1 D4:4"`
 * are split, `"D:11:26"` and `"D30:05"` are repaired to `D11:26` and `D30:5`,
 * anything else that is not `D<session>:<turn>` (e.g. `"D"`) is dropped.
 */
export function parseEvidence(raw: unknown): string[] {
  const out: string[] = [];
  for (const token of String(raw).split(/[;,\s]+/)) {
    const m = /^D:?(\d+):0*(\d+)$/.exec(token.trim());
    if (m) out.push(`D${Number(m[1])}:${m[2]}`);
  }
  return out;
}

/** Whether parsed JSON looks like LoCoMo (an array of samples with `conversation` and `qa`). */
export function isLocomo(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  const first = value[0] as Record<string, unknown> | null;
  return typeof first === 'object' && first !== null && 'conversation' in first && 'qa' in first;
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/** LoCoMo samples (parsed JSON) as conversations; a sample without its fields is refused by index and field. */
export function parseLocomo(samples: unknown, source = 'LoCoMo'): LocomoConversation[] {
  if (!Array.isArray(samples)) throw invalidInput(`${source} is not a LoCoMo file: expected a JSON array of samples.`);
  return samples.map((sample, index) => {
    const where = `${source}: sample ${index}`;
    const s = sample as { sample_id?: unknown; conversation?: unknown; qa?: unknown };
    if (typeof s !== 'object' || s === null || typeof s.conversation !== 'object' || s.conversation === null)
      throw invalidInput(`${where} has no "conversation" object.`, { sample: index, field: 'conversation' });
    if (!Array.isArray(s.qa)) throw invalidInput(`${where} has no "qa" array.`, { sample: index, field: 'qa' });
    const conversation = s.conversation as Record<string, unknown>;
    const sessions = Object.keys(conversation)
      .filter((key) => /^session_\d+$/.test(key))
      .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
    const turns: LocomoTurn[] = sessions.flatMap((key) => {
      const sessionAt = parseLocomoDate(conversation[`${key}_date_time`]);
      const raw = conversation[key];
      if (!Array.isArray(raw)) throw invalidInput(`${where}: "${key}" is not an array of turns.`, { sample: index });
      return (raw as RawTurn[]).map((t, i) => {
        if (typeof t?.speaker !== 'string' || typeof t.text !== 'string' || typeof t.dia_id !== 'string')
          throw invalidInput(`${where}: ${key}[${i}] needs "speaker", "dia_id" and "text" strings.`, {
            sample: index,
            field: `${key}[${i}]`,
          });
        const text = `${t.text}${t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : ''}`;
        return {
          diaId: t.dia_id,
          content: `${t.speaker}: ${text}`,
          speaker: t.speaker,
          text,
          session: Number(key.slice(8)),
          ...(sessionAt ? { sessionAt } : {}),
        };
      });
    });
    const known = new Set(turns.map((t) => t.diaId));
    const missingEvidence: string[] = [];
    const questions: LocomoQuestion[] = [];
    let skipped = 0;
    for (const qa of s.qa as { question?: unknown; evidence?: unknown; category?: unknown }[]) {
      const evidence = [...new Set((Array.isArray(qa?.evidence) ? qa.evidence : []).flatMap(parseEvidence))].filter(
        (id) => {
          if (known.has(id)) return true;
          missingEvidence.push(id);
          return false;
        },
      );
      if (evidence.length === 0 || typeof qa.question !== 'string' || qa.question.trim() === '') skipped++;
      else questions.push({ question: qa.question, evidence, category: Number(qa.category) });
    }
    const id = typeof s.sample_id === 'string' ? s.sample_id : `sample-${index}`;
    return { id, turns, questions, skipped, missingEvidence };
  });
}

/** LoCoMo conversations as eval cases: one case per conversation, its sessions, and its questions with evidence. */
export function locomoSuite(conversations: readonly LocomoConversation[], source = 'LoCoMo'): EvalSuite {
  const cases: EvalCase[] = conversations.map((c) => {
    const evalCase = emptyCase(c.id);
    for (const turn of c.turns) {
      let session = evalCase.sessions.at(-1);
      if (!session || session.id !== `session_${turn.session}`) {
        session = {
          id: `session_${turn.session}`,
          line: 0,
          turns: [],
          ...(turn.sessionAt ? { at: turn.sessionAt } : {}),
        };
        evalCase.sessions.push(session);
      }
      session.turns.push({ id: turn.diaId, line: 0, speaker: turn.speaker, text: turn.text });
    }
    evalCase.questions = c.questions.map((q) => ({
      line: 0,
      question: q.question,
      expect: q.evidence,
      category: LOCOMO_CATEGORY_NAMES[q.category] ?? String(q.category),
    }));
    return evalCase;
  });
  const skipped = conversations.reduce((n, c) => n + c.skipped, 0);
  const warnings =
    skipped > 0 ? [`${skipped} question(s) of ${source} have no evidence that names a turn; left out.`] : [];
  return { source, cases, warnings };
}
