// docs/core.md as a first page: its opening snippet runs, and every method its tables name exists on the store
// that snippet makes, so a reader who calls what the page lists never meets "is not a function".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAgentMemory, HashingEmbedder, InMemoryBackend } from '@agentmem/core';
import { describe, expect, it } from 'vitest';

const page = readFileSync(join(__dirname, '../../docs/core.md'), 'utf8');

/** The first column of the page's method tables (those headed `| method | what it does |`). */
function namedMembers(): string[] {
  const tables = page
    .split('| method | what it does |')
    .slice(1)
    .map((rest) => rest.split('\n\n')[0]!);
  const cells = tables.flatMap((table) => [...table.matchAll(/^\| (.+?) \|/gm)].map((m) => m[1]!));
  return cells.flatMap((cell) => [...cell.matchAll(/`([a-zA-Z]+)(?:\(|`)/g)].map((m) => m[1]!));
}

describe('docs/core.md', () => {
  it('the opening snippet builds a store with the scope it gives', async () => {
    const code = /^```ts\n([\s\S]*?)^```$/m.exec(page)![1]!;
    expect(code).toContain('createAgentMemory({');
    const options = /createAgentMemory\(\{([\s\S]*?)\}\);/.exec(code)![1]!;
    const build = new Function('InMemoryBackend', 'HashingEmbedder', `return {${options}};`);
    const memory = await createAgentMemory(build(InMemoryBackend, HashingEmbedder));
    expect([memory.tenant, memory.branch, memory.agentId]).toEqual(['user-42', 'main', 'coder']);
    await memory.remember({ content: 'The staging database is PostgreSQL 16', type: 'project' });
    const [top] = await memory.recall('staging database');
    expect(top?.memory.content).toBe('The staging database is PostgreSQL 16');
    await memory.close();
  });

  it('every method and property its tables name exists on that store', async () => {
    const memory = await createAgentMemory({ backend: new InMemoryBackend() });
    const named = namedMembers();
    expect(named.length).toBeGreaterThan(30);
    expect(named).toContain('rememberWithConflictCheck');
    const missing = named.filter((name) => !(name in memory));
    expect(missing).toEqual([]);
    await memory.close();
  });

  it("docs/concepts.md's calls are the store's (or the embedder's) and core.md lists the store's", async () => {
    const concepts = readFileSync(join(__dirname, '../../docs/concepts.md'), 'utf8');
    const calls = [...new Set([...concepts.matchAll(/`([a-zA-Z]+)\(/g)].map((m) => m[1]!))];
    expect(calls).toContain('rememberConversation');
    const memory = await createAgentMemory({ backend: new InMemoryBackend() });
    const embedder = new HashingEmbedder();
    expect(calls.filter((name) => !(name in memory) && !(name in embedder))).toEqual([]);
    const storeCalls = calls.filter((name) => name in memory && !(name in embedder)); // `embed()` is the embedder's
    expect(storeCalls.filter((name) => !namedMembers().includes(name))).toEqual([]);
    await memory.close();
  });
});
