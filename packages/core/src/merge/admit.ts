/**
 * What a merge lets in: every memory and skill record of the source passes
 * the write policy `remember` and `register` pass (store/stored-memory.ts,
 * skills/validate.ts), in the plan, before anything is written. A record that
 * breaks it refuses the whole merge (and the diff) with the record's id, the
 * field and the rule; one the policy cleans is written clean.
 */
import type { BackendRecord, Memory } from '../contracts';
import { AgentMemoryError } from '../errors';
import { SKILLS_NAMESPACE } from '../scope';
import { skillRecord } from '../skills/registry';
import { storedSkill } from '../skills/validate';
import { KIND, memoryToRecord } from '../store/codec';
import type { WriteLimits } from '../store/limits';
import { storedMemoryFromRecord } from '../store/stored-memory';
import { preview, validateId, validateTenant, violation } from '../store/validate';
import type { MergeSource } from './types';

/** Checks and cleans one source record; text, context and attributes are derived again from what passed. */
export type RecordAdmission = (record: BackendRecord) => BackendRecord;

/**
 * `vectors`: the dimension of the store when the records' vectors are read to
 * be copied (each must then be there and fit); undefined when they are not
 * read (keys) or not copied (re-embedding).
 */
export function recordAdmission(source: MergeSource, limits: WriteLimits, vectors?: number): RecordAdmission {
  const now = new Date().toISOString();
  return (record) => {
    try {
      return admit(record, limits, now, vectors);
    } catch (error) {
      throw refusal(source, record, error);
    }
  };
}

/** Checks one source memory record (kind `memory`) and returns the clean memory, without building its record. */
export type MemoryAdmission = (record: BackendRecord) => Memory;

export function memoryAdmission(source: MergeSource, limits: WriteLimits): MemoryAdmission {
  const now = new Date().toISOString();
  return (record) => {
    try {
      return storedMemoryFromRecord(record, limits, now);
    } catch (error) {
      throw refusal(source, record, error);
    }
  };
}

function admit(record: BackendRecord, limits: WriteLimits, now: string, dimension: number | undefined): BackendRecord {
  const kind = record.attributes?.kind;
  const vector = dimension === undefined ? undefined : checkedVector(record.vector, dimension);
  if (kind === KIND.memory) return memoryToRecord(storedMemoryFromRecord(record, limits, now), vector);
  if (kind === KIND.skill) {
    if (record.namespace !== SKILLS_NAMESPACE) {
      throw violation(
        'namespace',
        'reserved',
        `A skill record lives in ${SKILLS_NAMESPACE}, not ${preview(record.namespace)}.`,
      );
    }
    return skillRecord(storedSkill(record.payload), validateId(record.id), validateTenant(record.tenant), vector);
  }
  throw violation('kind', 'one-of', `A merge carries memories and skills, not ${preview(kind)} records.`);
}

/** A vector copied as it is must be one the local index can hold: the store's dimension, finite numbers. */
function checkedVector(vector: Float32Array | undefined, dimension: number): Float32Array {
  if (!(vector instanceof Float32Array)) {
    throw violation('vector', 'required', 'The record has no vector; merge with { reembed: true } to compute one.');
  }
  if (vector.length !== dimension) {
    throw violation(
      'vector',
      'max-length',
      `The vector has ${vector.length} dimensions; this store's embedder has ${dimension}.`,
    );
  }
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i]!)) throw violation('vector', 'range', `The vector holds ${vector[i]} at ${i}.`);
  }
  return vector;
}

function validId(id: unknown): boolean {
  try {
    validateId(id);
    return true;
  } catch {
    return false;
  }
}

/**
 * The merge's refusal: CORRUPT_SNAPSHOT for a snapshot file (someone edited
 * it, or it was written by a broken tool), INVALID_INPUT for a branch or
 * store. Any other error (a backend failure) passes through unchanged.
 */
function refusal(source: MergeSource, record: BackendRecord, error: unknown): unknown {
  if (!AgentMemoryError.hasCode(error, 'INVALID_INPUT')) return error;
  const field = String(error.details.field ?? 'record');
  const rule = String(error.details.rule ?? 'invalid');
  const what = record.attributes?.kind === KIND.skill ? 'skill record' : 'record';
  const snapshot = source.kind === 'snapshot';
  return new AgentMemoryError(
    snapshot ? 'CORRUPT_SNAPSHOT' : 'INVALID_INPUT',
    `${source.label}: ${what} ${validId(record.id) ? record.id : preview(record.id)} breaks the write policy at ${field} (${rule}): ${error.message} ` +
      `Nothing was merged${snapshot ? '; ask for a new snapshot, or remove or fix that record in the file' : ''}.`,
    {
      cause: error,
      details: { source: source.label, recordId: validId(record.id) ? record.id : preview(record.id), field, rule },
    },
  );
}
