import type { Migration } from '../schema/migration';
import type { TableNames } from '../schema/names';

/** `"schema"."<table>_links"`: the memory <-> entity links of one store. */
export function linksTable(n: TableNames): string {
  return `"${n.schema}"."${n.table}_links"`;
}

/**
 * Schema step 3: the links table. One row per record and entity key, with the
 * record's scope; a record's delete takes its links with it (foreign key).
 * Its primary key serves `linked` (a key's count and first ids in id order,
 * per tenant) and covers the namespace, so both read the index only.
 */
export const LINKS_MIGRATION: Migration = {
  version: 3,
  description: 'memory <-> entity links (key, tenant, namespace, record id)',
  up: (n) => [
    `CREATE TABLE ${linksTable(n)} (
      key text COLLATE "C" NOT NULL,
      tenant text COLLATE "C" NOT NULL,
      namespace text COLLATE "C" NOT NULL,
      record_id text COLLATE "C" NOT NULL REFERENCES ${n.records} (id) ON DELETE CASCADE,
      PRIMARY KEY (key, tenant, record_id) INCLUDE (namespace)
    )`,
    `CREATE INDEX "${n.table}_links_record_idx" ON ${linksTable(n)} (record_id)`,
  ],
};
