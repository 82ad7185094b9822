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

/**
 * LangChain hands `afterAgent` an empty runtime context, so the model-call
 * hook remembers each run's context under the id of the run's latest user
 * message and the after-agent hook takes it back.
 */
export class RunContexts {
  private readonly byRun = new Map<string, unknown>();

  private key(messages: readonly { id?: string; getType(): string }[]): string | undefined {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.getType() === 'human') return m.id ?? `index:${i}`;
    }
    return undefined;
  }

  remember(messages: readonly { id?: string; getType(): string }[], context: unknown): void {
    const key = this.key(messages);
    if (key === undefined || context === undefined) return;
    this.byRun.set(key, context);
    if (this.byRun.size > 1000) this.byRun.delete(this.byRun.keys().next().value!);
  }

  take(messages: readonly { id?: string; getType(): string }[]): unknown {
    const key = this.key(messages);
    if (key === undefined) return undefined;
    const context = this.byRun.get(key);
    this.byRun.delete(key);
    return context;
  }
}

/** The thread of a run: the context's `sessionId`/`threadId`, else LangGraph's `configurable.thread_id`. */
export function threadOf(context: unknown, configurable: unknown): string | undefined {
  const c = (context ?? {}) as Record<string, unknown>;
  const k = (configurable ?? {}) as Record<string, unknown>;
  for (const v of [c.sessionId, c.threadId, k.thread_id]) if (typeof v === 'string' && v !== '') return v;
  return undefined;
}
