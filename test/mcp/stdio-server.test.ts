import { readFileSync, writeFileSync } from 'node:fs';
import { SessionSummary } from '@agentmem/core';
import { createSqliteMemory } from '@agentmem/sqlite';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, readText, type Started, startServer, tempDir, textOf } from './helpers';

const DOCKER_SKILL = `---
description: Docker best practices
glob_patterns: ["Dockerfile", "docker-compose*.yml"]
trigger_keywords: ["docker", "container"]
tools_allowed: ["docker_build"]
---
## Docker Guidelines
- Always use multi-stage builds
`;

const TOOLS = [
  'remember',
  'recall',
  'forget',
  'history',
  'restore',
  'activate_skills',
  'load_skill',
  'list_skills',
  'branch_list',
  'branch_switch',
  'branch_diff',
  'branch_merge',
  'snapshot',
  'diff_snapshot',
  'merge_snapshot',
  'undo_merge',
  'decay',
];

describe('agentmem-mcp over stdio, driven by the SDK Client', () => {
  const tmp = tempDir();
  let server: Started;
  let client: Client;

  beforeAll(async () => {
    writeFileSync(tmp.path('docker.md'), DOCKER_SKILL);
    // A session summary written by the runtime middleware in an earlier run.
    const seed = await createSqliteMemory({ path: tmp.path('memory.db'), branch: 'main' });
    await new SessionSummary(seed, {
      sessionId: 'thread-7',
      summarize: async () => 'Dana is migrating the orders service to PostgreSQL 16.',
    }).update([{ role: 'user', parts: [{ type: 'text', text: 'Help me migrate the orders service.' }] }]);
    await seed.close();
    server = await startServer([
      '--db',
      tmp.path('memory.db'),
      '--branch',
      'main',
      '--cwd',
      tmp.dir,
      '--skills',
      tmp.path('docker.md'),
      '--agent',
      'claude-code',
    ]);
    client = server.client;
  });

  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
  });

  it('lists every tool with JSON-schema input and output and honest annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description).toBeTruthy();
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['forget', 'decay', 'branch_merge', 'merge_snapshot', 'undo_merge']) {
      expect(byName[name]!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
      // Destructive tools preview unless told otherwise.
      expect(byName[name]!.inputSchema.properties?.dryRun).toMatchObject({ type: 'boolean', default: true });
    }
    // snapshot replaces a file only when asked to.
    expect(byName.snapshot!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(byName.snapshot!.inputSchema.properties?.overwrite).toMatchObject({ type: 'boolean', default: false });
    for (const name of [
      'recall',
      'history',
      'activate_skills',
      'load_skill',
      'list_skills',
      'branch_list',
      'branch_diff',
      'diff_snapshot',
    ]) {
      expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: true });
    }
    expect(byName.remember!.inputSchema.required).toEqual(['content', 'type']);
  });

  it('remembers, recalls, shows history and forgets only when dryRun is false', async () => {
    const written = await call(client, 'remember', {
      content: 'Dana prefers tabs over spaces in every repository.',
      type: 'user',
      importance: 0.9,
      tags: ['style'],
    });
    expect(written).toMatchObject({ stored: true, duplicate: false, superseded: [], conflicts: [] });
    expect(written.memory).toMatchObject({ type: 'user', importance: 0.9, tags: ['style'], agentId: 'claude-code' });
    const id = written.memory.id;

    const again = await call(client, 'remember', {
      content: 'Dana prefers tabs over spaces in every repository.',
      type: 'user',
    });
    expect(again).toMatchObject({ stored: false, duplicate: true, memory: { id } });

    const { results } = await call(client, 'recall', { query: 'tabs or spaces?', k: 3 });
    expect(results[0].memory.id).toBe(id);
    expect(results[0].signals.keyword.rank).toBe(1);

    const preview = await call(client, 'forget', { id });
    expect(preview).toMatchObject({ dryRun: true, forgotten: false, memory: { id } });
    expect(
      (await call(client, 'recall', { query: 'tabs or spaces?' })).results.map(
        (r: { memory: { id: string } }) => r.memory.id,
      ),
    ).toContain(id);

    expect(await call(client, 'forget', { id, dryRun: false })).toMatchObject({ dryRun: false, forgotten: true });
    expect((await call(client, 'recall', { query: 'tabs or spaces?' })).results).toEqual([]);
    const history = await call(client, 'history', { id });
    expect(history.entries.map((e: { action: string }) => e.action)).toEqual(['create', 'forget']);
  });

  it('resolves conflicts on remember: supersede by default, keep_existing refuses the write', async () => {
    const old = await call(client, 'remember', { content: 'The database is PostgreSQL 14', type: 'project' });
    const fresh = await call(client, 'remember', { content: 'The database is PostgreSQL 16', type: 'project' });
    expect(fresh.stored).toBe(true);
    expect(fresh.resolution).toBe('supersede');
    expect(fresh.superseded).toEqual([old.memory.id]);
    expect(fresh.conflicts[0].memory.id).toBe(old.memory.id);
    expect(fresh.conflicts[0].similarity).toBeGreaterThan(0.5);

    const refused = await call(client, 'remember', {
      content: 'The database is PostgreSQL 17',
      type: 'project',
      onConflict: 'keep_existing',
    });
    expect(refused).toMatchObject({ stored: false, duplicate: false, resolution: 'keep_existing' });
    expect(refused.memory).toBeUndefined();
    const { results } = await call(client, 'recall', { query: 'Which PostgreSQL version is the database?', k: 3 });
    expect(results.map((r: { memory: { content: string } }) => r.memory.content)).toEqual([
      'The database is PostgreSQL 16',
    ]);

    const restored = await call(client, 'restore', { id: old.memory.id });
    expect(restored.memory.supersededBy).toBeUndefined();
  });

  it('returns bad input and unknown ids as tool errors with core messages, and keeps serving', async () => {
    const badType = await callError(client, 'remember', { content: 'x', type: 'nope' });
    expect(badType.message).toMatch(/Invalid arguments for tool remember.*type/s);
    const missing = await callError(client, 'recall', {});
    expect(missing.message).toMatch(/query/);
    const empty = await callError(client, 'recall', { query: '   ' });
    expect(empty).toEqual({ code: 'INVALID_INPUT', message: 'recall() needs a non-empty query.' });
    // The tools reach the store's write policy: bounds refused with INVALID_INPUT, control characters cleaned.
    const big = await callError(client, 'remember', {
      content: 'x',
      type: 'user',
      metadata: { b: 'x'.repeat(2_000_000) },
    });
    expect(big.code).toBe('INVALID_INPUT');
    expect(big.message).toMatch(/Metadata is more than \d+ bytes as JSON; the limit is 65536/);
    const dirty = await call(client, 'remember', {
      content: 'Tag hygiene',
      type: 'user',
      tags: ['ops\u0000\u001b[2J'],
    });
    expect(dirty.memory.tags).toEqual(['ops']);

    for (const tool of ['forget', 'history']) {
      const unknown = await callError(client, tool, { id: 'mem_does_not_exist' });
      expect(unknown.code).toBe('NOT_FOUND');
      expect(unknown.message).toContain('No memory with id mem_does_not_exist');
    }
    const restore = await callError(client, 'restore', { id: 'mem_does_not_exist' });
    expect(restore.code).toBe('NOT_FOUND');

    writeFileSync(tmp.path('foreign.db'), 'this is not a snapshot, just text');
    const foreign = await callError(client, 'diff_snapshot', { path: tmp.path('foreign.db') });
    expect(foreign.code).toBe('NOT_A_SNAPSHOT');
    expect(foreign.message).toContain(`${tmp.path('foreign.db')} is not a usable agentmem snapshot`);
    // A real snapshot cut in half: refused, and the store is as it was.
    await call(client, 'snapshot', { path: 'whole.db' });
    const whole = readFileSync(tmp.path('whole.db'));
    writeFileSync(tmp.path('truncated.db'), whole.subarray(0, Math.floor(whole.length / 2)));
    const before = JSON.parse((await readText(client, 'agentmem://stats')).text);
    for (const tool of ['diff_snapshot', 'merge_snapshot']) {
      const corrupt = await callError(client, tool, { path: 'truncated.db', dryRun: false });
      expect(corrupt.code).toBe('CORRUPT_SNAPSHOT');
      expect(corrupt.message).toContain('the file is damaged');
      expect(corrupt.message).toContain('Nothing was changed');
    }
    expect(JSON.parse((await readText(client, 'agentmem://stats')).text)).toEqual(before);
    const absent = await callError(client, 'diff_snapshot', { path: 'no-such-snapshot.db' });
    expect(absent.code).toBe('NOT_FOUND');

    const badBranch = await callError(client, 'branch_switch', { branch: '' });
    expect(badBranch.code).toBe('INVALID_INPUT');
    expect((await callError(client, 'decay', { now: 'yesterday-ish' })).code).toBe('INVALID_INPUT');
    const unknownTool = (await client.callTool({ name: 'no_such_tool', arguments: {} })) as CallToolResult;
    expect(unknownTool.isError).toBe(true);
    expect(textOf(unknownTool)).toContain('no_such_tool');

    // Still serving, and nothing but protocol went to stdout.
    expect((await call(client, 'list_skills')).skills.length).toBe(1);
    expect(server.errors).toEqual([]);
  });

  it('activates and lists skills loaded with --skills', async () => {
    const { skills } = await call(client, 'list_skills');
    expect(skills).toEqual([
      expect.objectContaining({
        name: 'docker',
        uri: 'skill://docker',
        globPatterns: ['Dockerfile', 'docker-compose*.yml'],
      }),
    ]);
    const active = await call(client, 'activate_skills', {
      message: 'Make this image smaller',
      filePath: 'services/api/Dockerfile',
    });
    expect(active.skills.map((s: { name: string }) => s.name)).toEqual(['docker']);
    expect(active.skills[0].signals.glob.paths).toContain('services/api/Dockerfile');
    expect(active.rendered).toContain('## Active skills');
    expect(active.rendered).toContain('### docker');
    expect(active.rendered).toContain('**Allowed tools:** docker_build');
    const none = await call(client, 'activate_skills', { message: 'What did we decide about invoice rounding?' });
    expect(none).toEqual({ skills: [], rendered: '' });
    const byFiles = await call(client, 'activate_skills', { message: 'tidy these', files: ['deploy/docker-compose.yml'] });
    expect(byFiles.skills[0].signals.glob.matches).toEqual([
      { path: 'deploy/docker-compose.yml', pattern: 'docker-compose*.yml', specificity: 'path' },
    ]);
  });

  it('load_skill returns the full instructions of a skill by name (catalog mode)', async () => {
    const loaded = await call(client, 'load_skill', { name: 'docker' });
    expect(loaded).toMatchObject({ name: 'docker', found: true });
    expect(loaded.instructions).toContain('### docker');
    expect(loaded.instructions).toContain('multi-stage');
    expect(await call(client, 'load_skill', { name: 'kubernetes' })).toEqual({
      name: 'kubernetes',
      found: false,
      instructions: '',
    });
  });

  it('switches, diffs and merges branches; merges preview until dryRun is false and can be undone', async () => {
    expect(await call(client, 'branch_switch', { branch: 'feature/cache' })).toMatchObject({
      previous: 'main',
      current: 'feature/cache',
      recallNamespaces: ['user', 'feedback', 'project:feature/cache', 'reference:feature/cache'],
    });
    const feature = await call(client, 'remember', {
      content: 'The cache layer uses Redis 7 with a 5 minute TTL.',
      type: 'project',
    });
    expect(feature.memory.namespace).toBe('project:feature/cache');
    await call(client, 'branch_switch', { branch: 'main' });
    const redis = async () => (await call(client, 'recall', { query: 'redis cache TTL' })).results;
    expect(await redis()).toEqual([]);

    const diff = await call(client, 'branch_diff', { source: 'feature/cache' });
    expect(diff.counts).toEqual({ new: 1, newSkills: 0, duplicates: 0, conflicts: 0 });
    expect(diff.imports[0]).toMatchObject({ content: feature.memory.content, targetNamespace: 'project:main' });

    const preview = await call(client, 'branch_merge', { source: 'feature/cache' });
    expect(preview).toMatchObject({ dryRun: true, plan: { counts: { new: 1 } } });
    expect(preview.merge).toBeUndefined();
    expect(await redis()).toEqual([]);

    const merged = await call(client, 'branch_merge', { source: 'feature/cache', dryRun: false });
    expect(merged.merge.counts.imported).toBe(1);
    expect(merged.summary).toContain('Imported: 1 new memory');
    expect((await redis())[0].memory).toMatchObject({ content: feature.memory.content, mergedFrom: 'feature/cache' });

    const branches = await call(client, 'branch_list');
    expect(branches.current).toBe('main');
    expect(branches.branches.map((b: { branch: string }) => b.branch).sort()).toEqual(['feature/cache', 'main']);

    expect(await call(client, 'undo_merge', { mergeId: merged.merge.mergeId })).toMatchObject({ dryRun: true });
    expect((await redis()).length).toBe(1);
    expect(await call(client, 'undo_merge', { mergeId: merged.merge.mergeId, dryRun: false })).toMatchObject({
      removed: 1,
    });
    expect(await redis()).toEqual([]);
    expect((await callError(client, 'undo_merge', { mergeId: 'merge_unknown' })).code).toBe('NOT_FOUND');
  });

  it('snapshots the store, diffs and merges the snapshot back (preview first)', async () => {
    const kept = await call(client, 'remember', {
      content: 'Invoices are rounded half-even to the cent.',
      type: 'project',
    });
    const snap = await call(client, 'snapshot', { path: 'handoff.db' }); // relative to --cwd
    expect(snap.path).toBe(tmp.path('handoff.db'));
    expect(snap.manifest.counts.memories).toBeGreaterThan(0);
    expect(snap.manifest.counts.skills).toBe(1);
    expect((await callError(client, 'snapshot', { path: 'handoff.db' })).message).toMatch(/exists/);

    await call(client, 'forget', { id: kept.memory.id, dryRun: false });
    const diff = await call(client, 'diff_snapshot', { path: tmp.path('handoff.db') });
    expect(diff.counts.new).toBe(1);
    expect(diff.imports[0].content).toBe(kept.memory.content);

    const preview = await call(client, 'merge_snapshot', { path: 'handoff.db' });
    expect(preview.dryRun).toBe(true);
    const invoices = async () => (await call(client, 'recall', { query: 'invoice rounding' })).results;
    expect(await invoices()).toEqual([]);

    const merged = await call(client, 'merge_snapshot', { path: 'handoff.db', strategy: 'newer_wins', dryRun: false });
    expect(merged.merge).toMatchObject({ strategy: 'newer_wins', counts: { imported: 1, conflicts: 0 } });
    expect((await invoices())[0].memory.content).toBe(kept.memory.content);
  });

  it('serves stats, each skill and the session summary as resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['agentmem://stats', 'skill://docker', 'session://current']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['session://{id}', 'skill://{name}']);

    const stats = JSON.parse((await readText(client, 'agentmem://stats')).text);
    expect(stats).toMatchObject({ branch: 'main', tenant: '', skills: 1, embedder: { dimension: 384 } });
    expect(stats.total).toBeGreaterThan(0);

    const skill = await readText(client, 'skill://docker');
    expect(skill.mimeType).toBe('text/markdown');
    expect(skill.text).toContain('description: "Docker best practices"');
    expect(skill.text).toContain('- Always use multi-stage builds');

    const session = await readText(client, 'session://current');
    expect(session.text).toBe('Dana is migrating the orders service to PostgreSQL 16.');
    expect((await readText(client, 'session://thread-7')).text).toBe(session.text);

    await expect(client.readResource({ uri: 'skill://kubernetes' })).rejects.toThrow(/No skill named "kubernetes"/);
    await expect(client.readResource({ uri: 'session://thread-unknown' })).rejects.toThrow(/No summary for session/);
  });

  it('decays as a dry run by default; applying prunes, restore brings a memory back', async () => {
    const later = new Date(Date.now() + 5 * 365 * 24 * 3600 * 1000).toISOString();
    const dry = await call(client, 'decay', { now: later });
    expect(dry.dryRun).toBe(true);
    expect(dry.pruned).toBeGreaterThan(0);
    const db = async () =>
      (await call(client, 'recall', { query: 'Which PostgreSQL version is the database?', k: 1 })).results;
    const [before] = await db();
    expect(before.memory.content).toMatch(/^The database is PostgreSQL 1[46]$/);

    const applied = await call(client, 'decay', { now: later, dryRun: false });
    expect(applied).toMatchObject({ dryRun: false, pruned: dry.pruned });
    expect(await db()).toEqual([]);
    await call(client, 'restore', { id: before.memory.id });
    expect((await db())[0].memory.id).toBe(before.memory.id);
  });

  it('the context_for_task prompt returns the injected block before the task', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['context_for_task']);
    expect(prompts[0]!.arguments?.map((a) => [a.name, a.required])).toEqual([
      ['message', true],
      ['filePath', false],
      ['files', false],
    ]);
    const prompt = await client.getPrompt({
      name: 'context_for_task',
      arguments: {
        message: 'Which PostgreSQL version does the database run? Also fix the Dockerfile.',
        filePath: 'Dockerfile',
      },
    });
    const text = prompt.messages[0]!.content.type === 'text' ? prompt.messages[0]!.content.text : '';
    expect(prompt.messages[0]!.role).toBe('user');
    expect(text).toContain('## Active skills');
    expect(text).toContain('### docker');
    expect(text).toContain('## Relevant memories');
    expect(text).toMatch(/The database is PostgreSQL 1[46]/);
    expect(text.endsWith('Which PostgreSQL version does the database run? Also fix the Dockerfile.')).toBe(true);
    expect(server.errors).toEqual([]);
  });
});
