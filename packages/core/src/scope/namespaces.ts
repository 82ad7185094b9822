import type { MemoryType } from '../contracts';
import { assertOneOf, invalidInput } from '../errors';

export const MEMORY_TYPES: readonly MemoryType[] = ['user', 'feedback', 'project', 'reference'];
/** Types shared by every branch. */
export const GLOBAL_TYPES: readonly MemoryType[] = ['user', 'feedback'];
/** Types that belong to one branch. */
export const BRANCH_SCOPED_TYPES: readonly MemoryType[] = ['project', 'reference'];

/** Reserved namespaces start with `_`; users cannot write memories there. */
export const SKILLS_NAMESPACE = '_skills';
export const HISTORY_NAMESPACE = '_history';
export const SYSTEM_NAMESPACE_PREFIX = '_';

export function isMemoryType(value: unknown): value is MemoryType {
  return typeof value === 'string' && (MEMORY_TYPES as readonly string[]).includes(value);
}

export function assertMemoryType(value: unknown): MemoryType {
  return assertOneOf(value, MEMORY_TYPES, 'memory type');
}

/** `user` and `feedback` are global; `project:<branch>` and `reference:<branch>` per branch. */
export function namespaceFor(type: MemoryType, branch: string): string {
  return (GLOBAL_TYPES as readonly string[]).includes(type) ? type : `${type}:${branch}`;
}

/** What recall sees on a branch, optionally limited to some types. */
export function recallNamespaces(branch: string, types: readonly MemoryType[] = MEMORY_TYPES): string[] {
  return types.map((t) => namespaceFor(t, branch));
}

/** The branch of a branch-scoped namespace, or undefined for a global one. */
export function branchOfNamespace(namespace: string): string | undefined {
  const i = namespace.indexOf(':');
  if (i < 0) return undefined;
  const type = namespace.slice(0, i);
  return (BRANCH_SCOPED_TYPES as readonly string[]).includes(type) ? namespace.slice(i + 1) : undefined;
}

export function assertBranchName(branch: unknown): string {
  if (typeof branch !== 'string' || branch.trim() === '' || branch.length > 255 || /\p{Cc}/u.test(branch)) {
    throw invalidInput(`Invalid branch name ${JSON.stringify(branch)}: use a non-empty git branch name.`);
  }
  return branch;
}
