import type { ConflictCheckResult, ConflictResolution } from '../conflicts';
import type { MemoryInput, MemoryType } from '../contracts';
import { AgentMemoryError, invalidInput } from '../errors';
import { MEMORY_TYPES, namespaceFor } from '../scope';
import type { RecallOptions, RecallResult } from '../store/memory-store';
import type { AgentMemory } from '../agent-memory';

export interface TeamOptions {
  /** Names the shared namespaces: `team:<teamId>:<namespace>`. */
  teamId: string;
  /** Agent ids allowed into the team. */
  members: readonly string[];
  /** How conflicting facts written to the team scope are resolved; default `supersede`. */
  resolution?: ConflictResolution;
}

export type Visibility = 'own' | 'team' | 'both';

/**
 * Several agents sharing memory. Each member writes with its own `agentId`
 * (provenance on every memory and history entry), keeps private namespaces
 * (`agent:<id>:<namespace>`) and shares the team's (`team:<teamId>:<namespace>`).
 * Writes to the team go through the conflict check, so a fact from one agent
 * that contradicts another's is resolved by the team's strategy, with both
 * authors in history.
 */
export class Team {
  constructor(
    private readonly memory: AgentMemory,
    readonly options: TeamOptions,
  ) {
    if (typeof options?.teamId !== 'string' || !/^[\w.-]+$/.test(options.teamId)) {
      throw invalidInput('teamId must be letters, digits, ".", "_" or "-".');
    }
    if (!Array.isArray(options.members) || options.members.length === 0) {
      throw invalidInput('A team needs at least one member agent id.');
    }
  }

  /** The memory of one member agent. */
  member(agentId: string): TeamMember {
    if (!this.options.members.includes(agentId)) {
      throw new AgentMemoryError('INVALID_INPUT', `Agent "${agentId}" is not a member of team "${this.options.teamId}". Add it to members.`);
    }
    return new TeamMember(this.memory.withScope({ agentId }), agentId, this.options);
  }
}

export class TeamMember {
  constructor(
    /** The member's own view of the store (its agentId is the provenance). */
    readonly memory: AgentMemory,
    readonly agentId: string,
    private readonly team: TeamOptions,
  ) {}

  private namespaceOf(type: MemoryType, where: 'own' | 'team'): string {
    const base = namespaceFor(type, this.memory.branch);
    return where === 'team' ? `team:${this.team.teamId}:${base}` : `agent:${this.agentId}:${base}`;
  }

  /** Writes a fact privately (`own`, default) or for the whole team (`team`, conflict-checked). */
  async remember(input: MemoryInput, options: { to?: 'own' | 'team'; resolution?: ConflictResolution } = {}): Promise<ConflictCheckResult> {
    const to = options.to ?? 'own';
    return this.memory.rememberWithConflictCheck(
      { ...input, namespace: this.namespaceOf(input.type, to) },
      { resolution: options.resolution ?? (to === 'team' ? (this.team.resolution ?? 'supersede') : 'supersede') },
    );
  }

  /** Recall from the member's own memories, the team's, or both (default). */
  async recall(query: string, options: RecallOptions & { from?: Visibility } = {}): Promise<RecallResult[]> {
    const from = options.from ?? 'both';
    const types = options.types ?? MEMORY_TYPES;
    const namespaces = types.flatMap((t) => [
      ...(from !== 'team' ? [this.namespaceOf(t, 'own')] : []),
      ...(from !== 'own' ? [this.namespaceOf(t, 'team')] : []),
    ]);
    const { from: _ignored, ...rest } = options;
    return this.memory.recall(query, { ...rest, namespaces });
  }
}

export function createTeam(memory: AgentMemory, options: TeamOptions): Team {
  return new Team(memory, options);
}
