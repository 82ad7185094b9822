import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../backends';
import { AgentMemoryError } from '../errors';
import { SKILLS_NAMESPACE } from '../scope';
import { MemoryStore } from '../store/memory-store';
import { FakeEmbedder } from '../testing';
import { SkillRegistry } from './registry';

async function setup(tenant = '') {
  const backend = new InMemoryBackend();
  const embedder = new FakeEmbedder({ dimension: 64 });
  const store = new MemoryStore({ backend, embedder, tenant });
  const skills = new SkillRegistry(store);
  return { backend, embedder, store, skills };
}

describe('SkillRegistry', () => {
  it('stores a skill as a record in the _skills namespace with an embedding', async () => {
    const { backend, embedder, skills } = await setup();
    const skill = await skills.register({
      name: 'docker',
      description: 'Docker best practices',
      content: '## Docker\n- multi-stage builds',
      triggerKeywords: ['docker', 'container'],
    });
    expect(skill).toMatchObject({
      name: 'docker',
      importance: 0.7,
      alwaysApply: false,
      globPatterns: [],
      specificationVersion: 'v1',
    });
    const page = await backend.scan({ filter: { tenant: '', namespaces: [SKILLS_NAMESPACE] }, withVectors: true });
    expect(page.records).toHaveLength(1);
    expect(page.records[0]!.attributes.kind).toBe('skill');
    expect(page.records[0]!.vector).toHaveLength(64);
    // The embedding covers name, description, keywords and the start of the content.
    expect(embedder.calls[0]!.texts[0]).toBe(
      'docker\nDocker best practices\ndocker, container\n## Docker\n- multi-stage builds',
    );
    expect(await skills.get('docker')).toEqual(skill);
  });

  it('replaces a skill registered again under the same name', async () => {
    const { skills } = await setup();
    await skills.register({ name: 'style', content: 'Use tabs.' });
    const second = await skills.register({ name: 'style', content: 'Use spaces.' });
    const all = await skills.list();
    expect(all).toHaveLength(1);
    expect(all[0]!.content).toBe('Use spaces.');
    expect(second.updatedAt >= second.createdAt).toBe(true);
  });

  it('changes nothing when an identical skill is registered again (no write, no embedding)', async () => {
    const { skills, embedder } = await setup();
    const first = await skills.registerMany([
      { name: 'a', content: 'A' },
      { name: 'b', content: 'B' },
    ]);
    expect(first.added).toEqual(['a', 'b']);
    const calls = embedder.calls.length;
    const again = await skills.registerMany([
      { name: 'a', content: 'A' },
      { name: 'b', content: 'B changed' },
    ]);
    expect(again).toMatchObject({ added: [], updated: ['b'], unchanged: ['a'] });
    expect(embedder.calls.length).toBe(calls + 1);
    expect(embedder.calls.at(-1)!.texts).toEqual(['b\nB changed']);
  });

  it('unregisters, lists by name and returns undefined for unknown names', async () => {
    const { skills } = await setup();
    await skills.registerMany([
      { name: 'zeta', content: 'z' },
      { name: 'alpha', content: 'a' },
    ]);
    expect((await skills.list()).map((s) => s.name)).toEqual(['alpha', 'zeta']);
    expect(await skills.unregister('zeta')).toBe(true);
    expect(await skills.unregister('zeta')).toBe(false);
    expect(await skills.get('zeta')).toBeUndefined();
    expect((await skills.list()).map((s) => s.name)).toEqual(['alpha']);
  });

  it('lists every skill, beyond one scan page', async () => {
    const { skills } = await setup();
    await skills.registerMany(Array.from({ length: 1205 }, (_, i) => ({ name: `s${i}`, content: `skill ${i}` })));
    expect(await skills.list()).toHaveLength(1205);
  });

  it('shares skills with every tenant by default', async () => {
    const { store, skills } = await setup('alice');
    await skills.register({ name: 'docker', content: 'App docker rules', triggerKeywords: ['docker'] });
    const bob = new SkillRegistry(store.withScope({ tenant: 'bob' }));
    expect((await bob.get('docker'))?.content).toBe('App docker rules');
    expect((await bob.activate('docker please')).map((a) => a.skill.name)).toEqual(['docker']);
  });

  it('keeps tenants apart with shared: false', async () => {
    const { store } = await setup('alice');
    const skills = new SkillRegistry(store, { shared: false });
    const bob = new SkillRegistry(store.withScope({ tenant: 'bob' }), { shared: false });
    await skills.register({ name: 'docker', content: 'Alice docker', triggerKeywords: ['docker'] });
    expect(await bob.list()).toEqual([]);
    expect(await bob.get('docker')).toBeUndefined();
    expect(await bob.activate('docker please')).toEqual([]);
    await bob.register({ name: 'docker', content: 'Bob docker' });
    expect((await skills.get('docker'))!.content).toBe('Alice docker');
  });

  it('does not show skills as memories', async () => {
    const { store, skills } = await setup();
    await skills.register({ name: 'docker', content: 'Use multi-stage docker builds' });
    expect(await store.recall('docker builds')).toEqual([]);
    expect((await store.stats()).total).toBe(0);
  });

  it('rejects bad input with INVALID_INPUT and writes nothing', async () => {
    const { skills } = await setup();
    const bad: unknown[] = [
      { name: '', content: 'x' },
      { name: 'a', content: '   ' },
      { name: 'a', content: 'x', importance: 2 },
      { name: 'a', content: 'x', triggerKeywords: 'docker' },
      { name: 'a', content: 'x', alwaysApply: 'true' },
    ];
    for (const input of bad) {
      const error = await skills
        .registerMany([{ name: 'ok', content: 'fine' }, input as never])
        .catch((e: unknown) => e);
      expect(AgentMemoryError.hasCode(error, 'INVALID_INPUT')).toBe(true);
    }
    expect(await skills.list()).toEqual([]);
  });

  it('loads a directory; loading it twice changes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentmem-reg-'));
    try {
      await writeFile(join(dir, 'docker.md'), '---\ndescription: Docker\n---\nUse multi-stage builds.');
      await mkdir(join(dir, '.cursor', 'rules'), { recursive: true });
      await writeFile(join(dir, '.cursor', 'rules', 'bad.mdc'), '---\nglobs: [\n---\nx');
      const { skills, embedder } = await setup();
      const first = await skills.load(dir);
      expect(first.added).toEqual(['docker']);
      expect(first.problems).toHaveLength(1);
      const before = await skills.list();
      const calls = embedder.calls.length;
      const second = await skills.load(dir);
      expect(second).toMatchObject({ added: [], updated: [], unchanged: ['docker'] });
      expect(await skills.list()).toEqual(before);
      expect(embedder.calls.length).toBe(calls);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
