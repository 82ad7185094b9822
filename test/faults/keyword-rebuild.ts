// Keyword search of a fault trial's file against a rebuild: what the bulk-ingest and catch-up trials check.
import { SqliteBackend } from '@agentmem/sqlite';
import Database from 'better-sqlite3';

/** Keyword hits of the queries over every memory of the file, as ids and scores. */
async function keywordHits(path: string, queries: readonly string[], readonly: boolean): Promise<string> {
  const backend = new SqliteBackend({ path, readonly });
  try {
    const out: string[] = [];
    for (const text of queries) {
      const hits = await backend.search({ mode: 'keyword', text, filter: { tenant: null }, k: 20 });
      out.push(hits.map((h) => `${h.record.id}:${h.score.toFixed(9)}`).join(','));
    }
    return out.join('\n');
  } finally {
    await backend.close();
  }
}

/**
 * Whether keyword search of the file from its saved keyword index (and the change log after it) ranks
 * the queries exactly as an index rebuilt from the records: the saved index is deleted for the second
 * search. `readonly` opens the file as a reader process does.
 */
export async function keywordSearchMatchesRebuild(
  path: string,
  queries: readonly string[],
  readonly: boolean,
): Promise<boolean> {
  const saved = await keywordHits(path, queries, readonly);
  const raw = new Database(path);
  raw.exec('DELETE FROM keyword_snapshot');
  raw.close();
  return saved === (await keywordHits(path, queries, readonly));
}
