import type { MemoryType } from '../contracts';

export interface RememberConversationOptions {
  /** Recorded in each turn's metadata (`sessionId`) and used by session-level recall evidence. */
  sessionId?: string;
  /** When the session took place (ISO 8601 or a Date): every turn's time unless the turn has its own. */
  at?: string | Date;
  /** A title for the session (e.g. the chat's subject), put into each turn's context. */
  title?: string;
  /** Neighbouring turns on each side put into a turn's context. Default 2; 0 keeps only the session line. */
  window?: number;
  /** Memory type of the turns. Default `user`. */
  type?: MemoryType;
  importance?: number;
  tags?: string[];
}
