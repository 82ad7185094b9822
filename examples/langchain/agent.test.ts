import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExample } from './agent';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-lc-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('examples/langchain (offline)', () => {
  it('learns in one session and uses memories, store notes and skills in the next', async () => {
    const result = await runExample(join(dir, 'memory.db'), () => {});
    const system = result.systemPrompts[0]!;
    expect(system).toContain('You are the team DevOps agent.');
    expect(system).toContain('The team deploys with Docker Compose on staging');
    expect(system).toContain('### docker');
    expect(result.toolResults[0]).toBe('Staging deploys need a green smoke test first');
    expect(result.memories).toEqual(['The team deploys with Docker Compose on staging']);
    expect(result.replies[1]).toMatch(/docker compose up/);
  });
});
