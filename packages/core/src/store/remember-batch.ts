// rememberMany's loops over a batch, as plain synchronous functions of their own. In the async method
// each loop made V8 compile the whole method (on-stack replacement, then again after each deopt: six
// optimizing compiles of it in a fresh process's first 20k ingest, ~17% of that ingest's compile time,
// which runs on V8's other threads; docs/benchmarks.md, ingest-15). A small function a loop is compiled
// once, for what it does; the method, called once a batch, is left to the interpreter.
//
// Each loop's function starts with its loop: what it needs first (arrays, sets, lengths) is made by a
// small function around it that runs once a batch and stays in the interpreter. V8 gives a function
// its type feedback only once it has run a while (lazy feedback allocation): in a batch's first call
// that is inside the loop, so what ran before it had none, and the code V8 compiled for the next
// call bailed out there at once and was compiled again (three compiles of batchKeys and of
// plannedMemories in a fresh process's 20k ingest; two with their loops on their own).
import type { BackendRecord, EntityMention, Memory } from '../contracts';
import { AgentMemoryError } from '../errors';
import { namespaceFor } from '../scope';
import { contentHash } from '../text';
import { newId, stableId, toMillis } from '../util';
import type { ByContent } from './by-content';
import { HISTORY_PENDING, memoryAttributes, memoryToRecord } from './codec';
import type { validateInput } from './validate';

type ValidInput = ReturnType<typeof validateInput>;

/**
 * An empty array that holds objects in V8's terms from the start. A `[]` holds small integers until
 * its first push, unless its literal has learnt otherwise, which a literal in a function without type
 * feedback yet (see above) has not: a loop compiled on the previous batch's array then met another
 * kind of array and bailed out ("not a Smi"), and was compiled again.
 */
function objectArray<T>(): T[] {
  const array = [undefined] as T[];
  array.length = 0;
  return array;
}

/**
 * An array of `count` entries, every one of which the batch's loop then writes, that holds objects in
 * V8's terms from the start. A `new Array(count)` holds small integers (holes) until its first write,
 * and a loop's first write is made before the function has type feedback (see above): the code V8
 * compiled for the first batch's array, then of objects, met the next batch's new one ("wrong map" in
 * keysInto at `namespaces[i] = …`) and was thrown away and compiled again. Its first entry is
 * `undefined` until the loop writes it.
 */
export function filledArray<T>(count: number): T[] {
  const array = new Array<T>(count);
  if (count > 0) array[0] = undefined as T;
  return array;
}

/** Who writes: the store's tenant, agent and branch. */
export interface WriterScope {
  tenant: string;
  agentId: string | undefined;
  branchName: string;
}

/**
 * Each input's namespace, content hash and derived id, in arrays of the batch (no planning object or
 * `namespace\u0000hash` key a memory: what a batch allocates lives through the whole call, and
 * young-generation collections copy it).
 */
export function batchKeys(
  valid: readonly ValidInput[],
  scope: WriterScope,
): { namespaces: string[]; hashes: string[]; ids: string[] } {
  const count = valid.length;
  const keys = {
    namespaces: filledArray<string>(count),
    hashes: filledArray<string>(count),
    ids: filledArray<string>(count),
  };
  keysInto(valid, scope, keys.namespaces, keys.hashes, keys.ids);
  return keys;
}

function keysInto(
  valid: readonly ValidInput[],
  scope: WriterScope,
  namespaces: string[],
  hashes: string[],
  ids: string[],
): void {
  for (let i = 0; i < valid.length; i++) {
    const v = valid[i]!;
    const namespace = v.namespace ?? namespaceFor(v.type, scope.branchName);
    const hash = contentHash(v.content);
    namespaces[i] = namespace;
    hashes[i] = hash;
    ids[i] = v.id ?? stableId('mem', scope.tenant, namespace, hash);
  }
}

/**
 * The memories a batch creates (`created`, at the inputs' positions `fresh`); every input's memory
 * (created or found) goes into `results`. The batch's own memory of a content first, then the stored
 * one (`existing`, the first per key).
 */
export function plannedMemories(
  valid: readonly ValidInput[],
  keys: { namespaces: readonly string[]; hashes: readonly string[]; ids: readonly string[] },
  existing: ByContent<Memory>,
  takenIds: ReadonlySet<string>,
  seen: ByContent<Memory>,
  scope: WriterScope,
  now: string,
  results: Memory[],
): { fresh: number[]; created: Memory[] } {
  // fresh: the inputs whose memories are created, in order
  const planned = { fresh: [] as number[], created: objectArray<Memory>() };
  const { namespaces, hashes, ids } = keys;
  const batch = { existing, takenIds, seen, freshIds: new Set<string>() };
  planInto(valid, namespaces, hashes, ids, batch, scope, now, results, planned.fresh, planned.created);
  return planned;
}

function planInto(
  valid: readonly ValidInput[],
  namespaces: readonly string[],
  hashes: readonly string[],
  ids: readonly string[],
  batch: { existing: ByContent<Memory>; takenIds: ReadonlySet<string>; seen: ByContent<Memory>; freshIds: Set<string> },
  scope: WriterScope,
  now: string,
  results: Memory[],
  fresh: number[],
  created: Memory[],
): void {
  for (let i = 0; i < valid.length; i++) {
    const namespace = namespaces[i]!;
    const hash = hashes[i]!;
    const known = batch.seen.get(namespace, hash) ?? batch.existing.get(namespace, hash);
    if (known) {
      results[i] = known;
      continue;
    }
    const v = valid[i]!;
    let id = ids[i]!;
    const taken = batch.freshIds.has(id) || batch.takenIds.has(id);
    if (taken && v.id) {
      // Records are keyed by id alone: writing would overwrite another memory, maybe another tenant's.
      throw new AgentMemoryError(
        'CONFLICT',
        `The id ${v.id} is already taken (by a record in this batch or in the store). Change a memory with update(), or remember it without an id.`,
        { details: { id: v.id } },
      );
    }
    if (taken) id = newId('mem'); // the derived id is taken by a memory whose content has since changed
    // Optional keys assigned in place (not spread from temporary objects): the same keys in the same
    // order, so the stored JSON is unchanged.
    const memory: Memory = {
      specificationVersion: 'v1',
      id,
      content: v.content,
      type: v.type,
      importance: v.importance,
      tags: v.tags,
      namespace,
      tenant: scope.tenant,
      createdAt: now,
      updatedAt: now,
      // Decay counts from the last access, not from the event: an imported history starts fresh.
      lastAccessedAt: now,
      occurredAt: v.occurredAt ?? now,
      accessCount: 0,
      contentHash: hash,
    } as Memory;
    if (scope.agentId) memory.agentId = scope.agentId;
    if (namespace !== v.type) memory.branch = scope.branchName;
    memory.metadata = v.metadata;
    if (v.context) memory.context = v.context;
    results[i] = memory;
    batch.seen.add(namespace, hash, memory);
    batch.freshIds.add(id);
    fresh.push(i);
    created.push(memory);
  }
}

/**
 * The records of the planned memories (`created[j]` is input `fresh[j]`'s, `vectors[j]` its vector),
 * without those another writer stored meanwhile (`now`: found again inside the write transaction;
 * their inputs get the stored memory in `results`).
 */
export function createdRecords(
  fresh: readonly number[],
  created: readonly Memory[],
  vectors: readonly Float32Array[],
  keys: { namespaces: readonly string[]; hashes: readonly string[] },
  now: ByContent<Memory> | undefined,
  results: Memory[],
  at: string,
): BackendRecord[] {
  const records = objectArray<BackendRecord>();
  const atMillis = toMillis(at);
  // Two loops, not a `now?.get` in one: the lookup's code, never run while nothing was written
  // meanwhile (the usual case), sent V8's compiled loop back to the interpreter when it first did.
  if (now === undefined) recordsInto(created, vectors, at, atMillis, records);
  else recordsAfterLookup(fresh, created, vectors, keys.namespaces, keys.hashes, now, results, at, atMillis, records);
  return records;
}

function recordsInto(
  created: readonly Memory[],
  vectors: readonly Float32Array[],
  at: string,
  atMillis: number,
  records: BackendRecord[],
): void {
  // createdRecord's body, not a call of it: a callee that runs once a record in a batch's first call is
  // compiled on its own, then again inlined into this loop's code (two compiles of createdRecord a
  // fresh process's 20k ingest, 12-25 ms of V8's compiler; docs/benchmarks.md, ingest-compile).
  for (let j = 0; j < created.length; j++) {
    const memory = created[j]!;
    const attributes = memoryAttributes(memory, at, atMillis);
    attributes[HISTORY_PENDING] = true;
    records.push(memoryToRecord(memory, vectors[j]!, attributes));
  }
}

function recordsAfterLookup(
  fresh: readonly number[],
  created: readonly Memory[],
  vectors: readonly Float32Array[],
  namespaces: readonly string[],
  hashes: readonly string[],
  now: ByContent<Memory>,
  results: Memory[],
  at: string,
  atMillis: number,
  records: BackendRecord[],
): void {
  for (let j = 0; j < fresh.length; j++) {
    const i = fresh[j]!;
    const other = now.get(namespaces[i]!, hashes[i]!);
    if (other) results[i] = other;
    else records.push(createdRecord(created[j]!, vectors[j]!, at, atMillis));
  }
}

/**
 * The record of a memory `rememberMany` created, with no history row: it carries the HISTORY_PENDING
 * marker and implies its `create` entry until it first changes other than by a prune (./codec). One row a memory
 * instead of two: the history row was a fifth of the file and a quarter of the write's CPU.
 *
 * The batch's time `at` is parsed once (`atMillis`), not four times a record: toMillis' parse of a
 * new time (once a batch) also sent the compiled record code back to the interpreter (ingest-17).
 */
export function createdRecord(memory: Memory, vector: Float32Array, at: string, atMillis: number): BackendRecord {
  const attributes = memoryAttributes(memory, at, atMillis);
  attributes[HISTORY_PENDING] = true;
  return memoryToRecord(memory, vector, attributes);
}

/** Each memory's entities (none: the key removed), from linkEntities. */
export function setEntities(memories: Memory[], entities: readonly EntityMention[][]): void {
  for (let i = 0; i < memories.length; i++) {
    const m = memories[i]!;
    if (entities[i]!.length > 0) m.entities = entities[i];
    else if ('entities' in m) delete m.entities;
  }
}

/** The content hashes of the inputs at `among` (their positions; or of all) by namespace, each once. */
export function hashesByNamespace(
  namespaces: readonly string[],
  hashes: readonly string[],
  among: readonly number[] | undefined,
): Map<string, Set<string>> {
  const byNamespace = new Map<string, Set<string>>();
  // The first namespace's set is made here, not by the loop: its first input (the branch that makes a
  // set) runs before the loop's function has type feedback, and the code compiled for the first batch
  // then bailed out at the next batch's first input ("insufficient type feedback") and was compiled
  // again. Its hashes are added by the loop, in the same order.
  const first = among ? among[0] : 0;
  if (first !== undefined && first < namespaces.length) byNamespace.set(namespaces[first]!, new Set());
  if (among) hashesAmong(namespaces, hashes, among, byNamespace);
  else allHashes(namespaces, hashes, byNamespace);
  return byNamespace;
}

function allHashes(namespaces: readonly string[], hashes: readonly string[], into: Map<string, Set<string>>): void {
  for (let i = 0; i < namespaces.length; i++) {
    const set = into.get(namespaces[i]!);
    if (set) set.add(hashes[i]!);
    else into.set(namespaces[i]!, new Set([hashes[i]!]));
  }
}

function hashesAmong(
  namespaces: readonly string[],
  hashes: readonly string[],
  among: readonly number[],
  into: Map<string, Set<string>>,
): void {
  for (let j = 0; j < among.length; j++) {
    const i = among[j]!;
    const set = into.get(namespaces[i]!);
    if (set) set.add(hashes[i]!);
    else into.set(namespaces[i]!, new Set([hashes[i]!]));
  }
}
