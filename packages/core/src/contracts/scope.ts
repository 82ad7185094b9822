/**
 * Where reads and writes go. The namespace of a memory follows from its type
 * and `branch`; `tenant` isolates users from each other; `agentId` is provenance.
 */
export interface Scope {
  /** Tenant id (e.g. a user id). Omitted or `''`: the single default tenant. */
  tenant?: string;
  /** Branch for `project` and `reference` memories. */
  branch: string;
  /** Who writes (recorded on every memory and history entry). */
  agentId?: string;
}
