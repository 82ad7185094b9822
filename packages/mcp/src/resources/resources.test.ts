import { createAgentMemory, InMemoryBackend, loadSkills } from '@agentmem/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpServer } from '../server/create-server';
import { ServerContext } from '../server/server-context';

const NAMES = ['Docker Best Practices', 'ci/cd', 'c++ (modern), strict', 'Übersicht: Tests'];

describe('skill resources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-mcp-skills-'));
  const client = new Client({ name: 'test', version: '1' });
  let close: () => Promise<void>;

  beforeAll(async () => {
    const memory = await createAgentMemory({ backend: new InMemoryBackend(), branch: 'main' });
    await memory.skills.registerMany(
      NAMES.map((name, i) => ({
        name,
        description: `skill ${i}`,
        content: `## ${name}\n- rule ${i}\n`,
        globPatterns: i === 0 ? ['Dockerfile'] : [],
        triggerKeywords: i === 0 ? ['docker'] : [],
        alwaysApply: i === 3,
      })),
    );
    const server = createMcpServer(new ServerContext(memory, { db: ':memory:', cwd: dir, skills: [] }, () => {}));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    await client.connect(b);
    close = async () => {
      await client.close();
      await server.close();
      await memory.close();
    };
  });

  afterAll(async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists one resource per skill and reads each back by its URI, whatever characters its name has', async () => {
    const { resources } = await client.listResources();
    const skills = resources.filter((r) => r.uri.startsWith('skill://'));
    expect(skills.map((r) => r.name).sort()).toEqual([...NAMES].sort());
    for (const resource of skills) {
      const [content] = (await client.readResource({ uri: resource.uri })).contents;
      expect(content && 'text' in content ? content.text : '').toContain(`## ${resource.name}`);
    }
  });

  it('renders a skill as a file the skill loader reads back unchanged', async () => {
    for (const name of NAMES) {
      const [content] = (await client.readResource({ uri: `skill://${encodeURIComponent(name)}` })).contents;
      writeFileSync(join(dir, 'skill.md'), content && 'text' in content ? content.text : '');
      const { skills, problems } = await loadSkills(join(dir, 'skill.md'));
      expect(problems).toEqual([]);
      const i = NAMES.indexOf(name);
      const loaded = skills[0]!;
      expect({
        name: loaded.name,
        description: loaded.description,
        content: loaded.content,
        globPatterns: loaded.globPatterns ?? [],
        triggerKeywords: loaded.triggerKeywords ?? [],
        alwaysApply: loaded.alwaysApply ?? false,
      }).toEqual({
        name,
        description: `skill ${i}`,
        content: `## ${name}\n- rule ${i}`, // the loader trims the body
        globPatterns: i === 0 ? ['Dockerfile'] : [],
        triggerKeywords: i === 0 ? ['docker'] : [],
        alwaysApply: i === 3,
      });
    }
  });

  it('lists no current session when no summary exists', async () => {
    const { resources } = await client.listResources();
    expect(resources[0]!.uri).toBe('agentmem://stats');
    expect(resources.some((r) => r.uri.startsWith('session://'))).toBe(false);
    await expect(client.readResource({ uri: 'session://current' })).rejects.toThrow(/No session summary yet/);
  });
});
