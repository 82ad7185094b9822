import type { JsonObject } from '../contracts';

/** One turn of a conversation, as `rememberConversation` takes it. */
export interface ConversationTurn {
  /** Who spoke (a name or a role such as `user`); stored as `speaker: text`. */
  speaker: string;
  text: string;
  /** When it was said (ISO 8601 or a Date); default: the session's `at`, else now. */
  at?: string | Date;
  /** Use this id for the memory (imports, tests). */
  id?: string;
  /** Merged over the turn's own metadata (`sessionId`, `turn`, `speaker`). */
  metadata?: JsonObject;
}
