import type { SearchHit } from '../contracts';

/** The metadata `rememberConversation` writes on every turn (`speaker`, `sessionId`, `turn`). */
function metadataOf(hit: SearchHit): { speaker?: unknown; sessionId?: unknown; turn?: unknown } | undefined {
  return (hit.record.payload as { metadata?: { speaker?: unknown; sessionId?: unknown; turn?: unknown } }).metadata;
}

/** Who said a memory (`metadata.speaker`), if it is a conversation turn. */
export function speakerOf(hit: SearchHit): string | undefined {
  const speaker = metadataOf(hit)?.speaker;
  return typeof speaker === 'string' ? speaker : undefined;
}

/** Where a turn stands: its session (`metadata.sessionId`) and index in it (`metadata.turn`), if both are there. */
export function turnPlace(hit: SearchHit): { session: string; turn: number } | undefined {
  const metadata = metadataOf(hit);
  return typeof metadata?.sessionId === 'string' && Number.isInteger(metadata.turn)
    ? { session: metadata.sessionId, turn: metadata.turn as number }
    : undefined;
}

export const byScore = (a: SearchHit, b: SearchHit) => b.score - a.score || (a.record.id < b.record.id ? -1 : 1);
