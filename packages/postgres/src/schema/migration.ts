import type { TableNames } from './names';

/** One schema step: its own file so that a capability's migration (links) imports it without the list. */
export interface Migration {
  version: number;
  description: string;
  /** Statements run in order inside the migration transaction. */
  up: (n: TableNames) => string[];
}
