import { type AgentMemory, type Memory, sessionNamespace } from '@agentmem/core';

const PREFIX = sessionNamespace('');

export interface SessionInfo {
  sessionId: string;
  summary: Memory;
}

/** Every session summary of the store's tenant, most recently updated first. */
export async function listSessions(memory: AgentMemory): Promise<SessionInfo[]> {
  const namespaces = (await memory.backend.namespaces({ tenant: memory.tenant }))
    .map((n) => n.namespace)
    .filter((ns) => ns.startsWith(PREFIX));
  const sessions: SessionInfo[] = [];
  for (const namespace of namespaces) {
    const summary = await latestIn(memory, namespace);
    if (summary) sessions.push({ sessionId: namespace.slice(PREFIX.length), summary });
  }
  return sessions.sort((a, b) => (a.summary.updatedAt < b.summary.updatedAt ? 1 : -1));
}

/** The summary of one session, if it has one. */
export function sessionSummary(memory: AgentMemory, sessionId: string): Promise<Memory | undefined> {
  return latestIn(memory, sessionNamespace(sessionId));
}

async function latestIn(memory: AgentMemory, namespace: string): Promise<Memory | undefined> {
  let latest: Memory | undefined;
  for await (const m of memory.memories({ namespaces: [namespace] })) {
    if (!latest || m.updatedAt > latest.updatedAt) latest = m;
  }
  return latest;
}
