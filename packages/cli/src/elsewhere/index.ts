import { type AgentMemory, branchOfNamespace, SYSTEM_NAMESPACE_PREFIX } from '@agentmem/core';
import { counted } from '../output';

/**
 * Where the store holds memories this command's scope does not see (other tenants, other branches), as a
 * hint for a recall or stats that found none ("3 memories for --tenant alice"), or undefined when there
 * are none: an empty answer is most often the wrong --tenant or --branch, not an empty store.
 */
export async function memoriesElsewhere(memory: AgentMemory): Promise<string | undefined> {
  const visible = new Set(memory.recallNamespaces());
  const where = new Map<string, number>();
  for (const n of await memory.backend.namespaces({ tenant: null })) {
    if (n.namespace.startsWith(SYSTEM_NAMESPACE_PREFIX) || n.count === 0) continue;
    if (n.tenant === memory.tenant && visible.has(n.namespace)) continue;
    const branch = branchOfNamespace(n.namespace);
    const place =
      n.tenant !== memory.tenant
        ? n.tenant === ''
          ? 'in the default tenant (no --tenant)'
          : `with --tenant ${n.tenant}`
        : branch === undefined
          ? undefined
          : `with --branch ${branch}`;
    if (place) where.set(place, (where.get(place) ?? 0) + n.count);
  }
  if (where.size === 0) return undefined;
  const places = [...where].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = places.slice(0, 3).map(([place, count]) => `${counted(count, 'memory', 'memories')} ${place}`);
  if (places.length > 3) shown.push(`${places.length - 3} more (\`agentmem export --all-tenants\` lists them)`);
  return `hint: other scopes of this store hold memories: ${shown.join(', ')}.`;
}
