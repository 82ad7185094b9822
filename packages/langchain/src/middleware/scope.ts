import type { AgentMemory } from '@agentmem/core';

/** Per-run scope, read from the agent's runtime context (`agent.invoke(input, { context })`). */
export interface MemoryScope {
  tenant?: string;
  branch?: string;
  agentId?: string;
}

export type ScopeResolver = (context: unknown) => MemoryScope | undefined;

/** Default: `context.userId` or `context.tenant` is the tenant, `context.branch` the branch. */
export const defaultScope: ScopeResolver = (context) => {
  if (!context || typeof context !== 'object') return undefined;
  const c = context as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return { tenant: str(c.tenant) ?? str(c.userId), branch: str(c.branch), agentId: str(c.agentId) };
};

export function scopedMemory(memory: AgentMemory, scope: MemoryScope | undefined): AgentMemory {
  if (!scope || (scope.tenant === undefined && scope.branch === undefined && scope.agentId === undefined)) return memory;
  return memory.withScope(scope);
}
