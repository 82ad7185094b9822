/**
 * The write policy for whole memories that arrive already made: a JSONL line
 * (`agentmem import`), a record of a snapshot or of another branch (merge).
 * The same field checks and cleaning as `remember` (./validate), plus the
 * fields only a stored memory has (timestamps, status, provenance); whatever
 * else the input carries is dropped, and the content hash is recomputed.
 */
import type { BackendRecord, EntityMention, JsonObject, Memory, MemoryType } from '../contracts';
import { validateStoredMentions } from '../entities/memory-entities';
import { assertBranchName, branchOfNamespace, namespaceFor } from '../scope';
import { contentHash } from '../text';
import { stableId } from '../util';
import type { WriteLimits } from './limits';
import {
  validateAgentId,
  validateContent,
  validateContext,
  validateId,
  validateImportance,
  validateLabel,
  validateMemoryType,
  validateMetadata,
  validateNamespace,
  validateOccurredAt,
  validateTags,
  validateTenant,
  violation,
} from './validate';

/** Every field a stored memory may carry; all but content and type may be absent (then derived). */
export interface StoredMemoryFields {
  content: string;
  type: MemoryType;
  id?: string;
  importance?: number;
  tags?: string[];
  metadata?: JsonObject;
  namespace?: string;
  tenant?: string;
  createdAt?: string;
  updatedAt?: string;
  lastAccessedAt?: string;
  /** When the memory's event happened (ISO 8601); default: its createdAt. */
  occurredAt?: string;
  prunedAt?: string;
  accessCount?: number;
  supersededBy?: string;
  agentId?: string;
  branch?: string;
  mergedFrom?: string;
  mergeId?: string;
  /** Text that helps find it (neighbouring turns, source); never its content. */
  context?: string;
  /** Entities as the writing store found them (checked, names cleaned, keys derived again). */
  entities?: EntityMention[];
}

const TIMESTAMPS = ['createdAt', 'updatedAt', 'lastAccessedAt', 'occurredAt', 'prunedAt'] as const;
/** The last branch name that passed (a merge checks thousands of records of one branch). */
let lastBranch = '';

/**
 * Checks and cleans every field of a stored memory (throws INVALID_INPUT with
 * `details.field` and `details.rule`); returns only the known fields.
 */
export function validateStoredFields(value: unknown, limits: WriteLimits): StoredMemoryFields {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw violation('memory', 'type', 'A memory must be a JSON object such as {"content": "...", "type": "project"}.');
  }
  const v = value as Record<string, unknown>;
  if (v.content === undefined) throw violation('content', 'required', 'Memory content is missing.');
  const out: StoredMemoryFields = {
    content: validateContent(v.content, limits.maxContentLength),
    type: validateMemoryType(v.type),
  };
  if (v.id !== undefined) out.id = validateId(v.id);
  if (v.importance !== undefined) out.importance = validateImportance(v.importance);
  if (v.tags !== undefined) out.tags = validateTags(v.tags, limits);
  if (v.metadata !== undefined) out.metadata = validateMetadata(v.metadata, limits);
  if (v.namespace !== undefined) out.namespace = validateNamespace(v.namespace);
  if (v.tenant !== undefined) out.tenant = validateTenant(v.tenant);
  for (const key of TIMESTAMPS) if (v[key] !== undefined) out[key] = validateOccurredAt(v[key], key);
  if (v.accessCount !== undefined) {
    if (!Number.isSafeInteger(v.accessCount) || (v.accessCount as number) < 0) {
      throw violation('accessCount', 'range', 'accessCount must be a non-negative whole number.');
    }
    out.accessCount = v.accessCount as number;
  }
  if (v.supersededBy !== undefined) out.supersededBy = validateId(v.supersededBy, 'supersededBy');
  if (v.mergeId !== undefined) out.mergeId = validateId(v.mergeId, 'mergeId');
  if (v.agentId !== undefined) out.agentId = validateAgentId(v.agentId);
  if (v.branch !== undefined) {
    if (typeof v.branch === 'string' && v.branch.length > 255) {
      throw violation('branch', 'max-length', `A branch name is ${v.branch.length} characters; git allows 255.`);
    }
    try {
      out.branch = v.branch === lastBranch ? lastBranch : assertBranchName(v.branch);
      lastBranch = out.branch;
    } catch (error) {
      throw violation('branch', 'one-of', (error as Error).message);
    }
  }
  if (v.mergedFrom !== undefined) out.mergedFrom = validateLabel(v.mergedFrom, 'mergedFrom');
  if (v.context !== undefined) {
    const context = validateContext(v.context, limits.maxContentLength);
    if (context !== undefined) out.context = context;
  }
  if (v.entities !== undefined) out.entities = validateStoredMentions(v.entities, validateOccurredAt);
  return out;
}

/** What fills the fields a stored memory leaves out. */
export interface StoredMemoryDefaults {
  /** createdAt when absent (ISO 8601). */
  now: string;
  tenant: string;
  /** The branch a branch-scoped memory without a namespace belongs to. */
  branch: string;
  agentId?: string;
}

/** A complete memory from checked fields: namespace, id and timestamps derived where absent. */
export function toStoredMemory(fields: StoredMemoryFields, defaults: StoredMemoryDefaults): Memory {
  const tenant = fields.tenant ?? defaults.tenant;
  const namespace = fields.namespace ?? namespaceFor(fields.type, defaults.branch);
  const hash = contentHash(fields.content);
  const createdAt = fields.createdAt ?? defaults.now;
  const branch = fields.branch ?? branchOfNamespace(namespace);
  const agentId = fields.agentId ?? defaults.agentId;
  return {
    specificationVersion: 'v1',
    id: fields.id ?? stableId('mem', tenant, namespace, hash),
    content: fields.content,
    type: fields.type,
    importance: fields.importance ?? 0.5,
    tags: fields.tags ?? [],
    namespace,
    tenant,
    createdAt,
    updatedAt: fields.updatedAt ?? createdAt,
    lastAccessedAt: fields.lastAccessedAt ?? createdAt,
    occurredAt: fields.occurredAt ?? createdAt,
    accessCount: fields.accessCount ?? 0,
    contentHash: hash,
    ...(fields.supersededBy ? { supersededBy: fields.supersededBy } : {}),
    ...(fields.prunedAt ? { prunedAt: fields.prunedAt } : {}),
    ...(agentId ? { agentId } : {}),
    ...(branch ? { branch } : {}),
    ...(fields.mergedFrom ? { mergedFrom: fields.mergedFrom } : {}),
    ...(fields.mergeId ? { mergeId: fields.mergeId } : {}),
    metadata: fields.metadata ?? {},
    ...(fields.context ? { context: fields.context } : {}),
    ...(fields.entities && fields.entities.length > 0 ? { entities: fields.entities } : {}),
  };
}

/**
 * A memory record another store wrote (a snapshot, another branch), through
 * the write policy. The record's id, namespace and tenant win over its
 * payload's copy (as `recordToMemory` reads them); its text, context and
 * attributes are derived again from the memory by whoever writes it.
 */
export function storedMemoryFromRecord(record: BackendRecord, limits: WriteLimits, now: string): Memory {
  const payload = record.payload as unknown;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw violation('payload', 'type', 'A memory record must hold a memory object.');
  }
  const fields = validateStoredFields(
    { ...(payload as object), id: record.id, namespace: record.namespace, tenant: record.tenant },
    limits,
  );
  return toStoredMemory(fields, { now, tenant: fields.tenant ?? '', branch: 'main' });
}
