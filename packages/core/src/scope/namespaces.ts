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

/**
 * A branch name as git accepts it (`git check-ref-format --branch` rules,
 * checked without running git), so `../../etc`, `a..b` or `-rf` never become
 * a namespace.
 */
export function assertBranchName(branch: unknown): string {
  const why = typeof branch === 'string' ? refNameProblem(branch) : 'it is not a string';
  if (why) {
    throw invalidInput(
      `Invalid branch name ${JSON.stringify(branch)}: ${why}. Use a git branch name such as feature/login.`,
      {
        branch,
      },
    );
  }
  return branch as string;
}

function refNameProblem(name: string): string | undefined {
  if (name === '' || name.length > 255) return 'it must have 1 to 255 characters';
  if (name === '@' || name === 'HEAD') return `${name} is not a branch`;
  if (name.startsWith('-')) return 'it starts with -';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses control characters in ref names
  const bad = /[\u0000-\u0020\u007f~^:?*[\\]/.exec(name);
  if (bad) return `it contains ${JSON.stringify(bad[0])}`;
  if (name.includes('..')) return 'it contains ".."';
  if (name.includes('@{')) return 'it contains "@{"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'it has an empty path component';
  if (name.endsWith('.')) return 'it ends with "."';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return 'a component starts with "."';
    if (part.endsWith('.lock')) return 'a component ends with ".lock"';
  }
  return undefined;
}
