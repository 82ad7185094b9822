import {
  AgentMemory,
  type AgentMemoryOptions,
  DEFAULT_PRUNE_THRESHOLD,
  halfLifeFor,
  type MemoryType,
} from '@agentmem/core';
import { readOnlyBackend } from './read-only-backend';

/** Store settings the inspector cannot read back from an opened AgentMemory (they are its private options). */
export type InspectorStoreSettings = Omit<AgentMemoryOptions, 'backend' | 'embedder' | 'tenant' | 'branch' | 'agentId'>;

/**
 * Views of the one opened store per tenant and branch. Reads go through a
 * read-only backend (so looking never writes); writes, when allowed, through
 * the real one. Everything uses core's public API, so every backend works.
 */
export class Stores {
  private readonly views = new Map<string, Promise<AgentMemory>>();
  private readonly guarded;

  constructor(
    readonly memory: AgentMemory,
    readonly settings: InspectorStoreSettings,
    readonly allowWrites: boolean,
  ) {
    this.guarded = readOnlyBackend(memory.backend);
  }

  /** The store's clock (settings.now) or the wall clock. */
  now(): number {
    return this.settings.now?.() ?? Date.now();
  }

  get pruneThreshold(): number {
    return this.settings.pruneThreshold ?? DEFAULT_PRUNE_THRESHOLD;
  }

  halfLifeHours(type: MemoryType): number {
    return halfLifeFor(type, this.settings.halfLifeHours);
  }

  /** A read-only view of `tenant` on `branch` (defaults: the opened store's). */
  read(scope: { tenant?: string; branch?: string } = {}): Promise<AgentMemory> {
    return this.view(scope, false);
  }

  /** A writing view; callers check `allowWrites` first (the HTTP layer refuses before this). */
  write(scope: { tenant?: string; branch?: string } = {}): Promise<AgentMemory> {
    return this.view(scope, true);
  }

  private view(scope: { tenant?: string; branch?: string }, writable: boolean): Promise<AgentMemory> {
    const tenant = scope.tenant ?? this.memory.tenant;
    const branch = scope.branch || this.memory.branch;
    const key = `${writable}\u0000${tenant}\u0000${branch}`;
    let view = this.views.get(key);
    if (!view) {
      const memory = new AgentMemory({
        ...this.settings,
        backend: writable ? this.memory.backend : this.guarded,
        embedder: this.memory.embedder,
        tenant,
        branch,
        agentId: this.memory.agentId ?? 'agentmem-inspector',
      });
      view = memory.init().then(() => memory);
      this.views.set(key, view);
      view.catch(() => this.views.delete(key));
    }
    return view;
  }
}
