import type { EntityInput, MemoryType } from '../contracts';
import { ENTITY_KINDS } from '../entities/entity-key';
import { AgentMemoryError } from '../errors';
import { isMemoryType } from '../scope';

/** A durable fact an extraction model proposes. */
export interface ExtractedFact {
  content: string;
  type: MemoryType;
  /** 0..1. */
  importance: number;
  /** The people, places, organizations, products, projects, events and dates the fact is about. */
  entities?: EntityInput[];
}

/** Longest entity name kept from a model's answer. */
const MAX_ENTITY_NAME = 200;

/** The well-formed `{ name, kind? }` items of a model's entity list (an unknown kind becomes `name`). */
function parseEntities(raw: unknown): EntityInput[] {
  if (!Array.isArray(raw)) return [];
  const out: EntityInput[] = [];
  for (const item of raw) {
    const { name, kind } = (item ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_ENTITY_NAME) continue;
    const known = ENTITY_KINDS.find((k) => k === kind);
    out.push({ name: name.trim(), kind: known ?? 'name' });
  }
  return out;
}

/**
 * Keeps the well-formed facts of a model's answer (`{ facts: [...] }` or a
 * bare list) and drops the rest; an answer with no list at all is an error.
 */
export function parseFacts(raw: unknown): ExtractedFact[] {
  const list = Array.isArray(raw) ? raw : (raw as { facts?: unknown } | null)?.facts;
  if (!Array.isArray(list)) {
    throw new AgentMemoryError('INVALID_INPUT', 'The extraction model did not answer with a list of facts.', {
      details: { answer: raw },
    });
  }
  const facts: ExtractedFact[] = [];
  for (const item of list) {
    if (item === null || typeof item !== 'object') continue;
    const { content, type, importance, entities } = item as Record<string, unknown>;
    if (typeof content !== 'string' || content.trim() === '' || !isMemoryType(type)) continue;
    const value = typeof importance === 'number' && Number.isFinite(importance) ? importance : 0.5;
    const named = parseEntities(entities);
    facts.push({
      content: content.trim(),
      type,
      importance: Math.min(1, Math.max(0, value)),
      ...(named.length > 0 ? { entities: named } : {}),
    });
  }
  return facts;
}

/** Parses facts out of a text answer (JSON, possibly inside a code fence or prose). */
export function parseFactsFromText(text: string): ExtractedFact[] {
  const candidates = [text.trim(), ...[...text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)].map((m) => m[1]!.trim())];
  const start = text.search(/[[{]/);
  if (start >= 0) candidates.push(text.slice(start, Math.max(text.lastIndexOf('}'), text.lastIndexOf(']')) + 1));
  for (const candidate of candidates) {
    try {
      return parseFacts(JSON.parse(candidate));
    } catch {
      // try the next reading
    }
  }
  throw new AgentMemoryError('INVALID_INPUT', 'The extraction model answered with no JSON list of facts.', {
    details: { answer: text.slice(0, 500) },
  });
}
