import type { AttributeCondition } from './attribute-condition';

/**
 * Which records an operation sees. `tenant` is required so that no call can
 * read across tenants by forgetting it: a string limits to that tenant,
 * `null` means every tenant (administrative scans: snapshot, export, decay).
 */
export interface RecordFilter {
  tenant: string | null;
  /** Limit to these namespaces; omitted means all. An empty list matches nothing. */
  namespaces?: readonly string[];
  /** All conditions must hold. */
  where?: Readonly<Record<string, AttributeCondition>>;
}
