import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';

/**
 * Writes `pages` pages of rows (one 7,000-byte row an 8 KiB page) inside the transaction open on `db`
 * and returns how many bytes the WAL holds before its commit: 0 when the page cache held them all, the
 * pages it spilled into the WAL mid-transaction otherwise. The WAL must be empty when the transaction
 * began (`emptyWal` before it).
 */
export function walBytesAfterWriting(db: Database.Database, pages: number): number {
  if (!db.inTransaction) throw new Error('walBytesAfterWriting writes inside an open transaction.');
  db.exec('CREATE TABLE IF NOT EXISTS cache_probe (b BLOB)');
  const insert = db.prepare('INSERT INTO cache_probe (b) VALUES (randomblob(7000))');
  for (let i = 0; i < pages; i++) insert.run();
  return statSync(`${db.name}-wal`).size;
}

/** Checkpoints the WAL into the file and truncates it to 0 bytes (nothing else may hold the file). */
export function emptyWal(db: Database.Database): void {
  const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  if (result?.busy !== 0 || statSync(`${db.name}-wal`).size !== 0) throw new Error('The WAL was not emptied.');
}
