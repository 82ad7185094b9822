import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentMemory, detectGitBranch, InMemoryBackend } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import { describe, expect, it } from 'vitest';
import { clock, fullState, memoryStore } from './helpers';

describe('branch-scoped memory', () => {
  it('recall on a feature branch sees the globals and that branch only', async () => {
    const memory = await memoryStore({ branch: 'main' });
    await memory.remember({ content: 'User prefers TypeScript for the auth service', type: 'user' });
    await memory.remember({ content: 'Main branch auth uses basic auth tokens', type: 'project' });
    expect(memory.switchBranch('feature/auth')).toBe('main');
    expect(memory.recallNamespaces()).toEqual(['user', 'feedback', 'project:feature/auth', 'reference:feature/auth']);
    await memory.remember({ content: 'Feature auth moves to OAuth2 with PKCE', type: 'project' });
    const seen = (await memory.recall('auth', { k: 10 })).map((r) => r.memory.content).sort();
    expect(seen).toEqual(['Feature auth moves to OAuth2 with PKCE', 'User prefers TypeScript for the auth service']);
    memory.switchBranch('main');
    const onMain = (await memory.recall('auth', { k: 10 })).map((r) => r.memory.content).sort();
    expect(onMain).toEqual(['Main branch auth uses basic auth tokens', 'User prefers TypeScript for the auth service']);
  });

  it('merges a branch deduplicated by content, idempotently, with provenance, and undoably', async () => {
    const now = clock();
    const memory = await memoryStore({ branch: 'main', now });
    await memory.remember({ content: 'Shared fact on both branches', type: 'project' });
    memory.switchBranch('feature/auth');
    await memory.remember({ content: 'Shared fact on both branches', type: 'project' });
    // More records than any page size, so the merge must page through them.
    await memory.rememberMany(
      Array.from({ length: 1203 }, (_, i) => ({ content: `Auth finding ${i}`, type: 'project' as const })),
    );
    await memory.remember({ content: 'RFC 7636 describes PKCE', type: 'reference' });
    memory.switchBranch('main');
    const before = await fullState(memory.backend);

    const diff = await memory.diffBranch('feature/auth');
    expect(diff.newMemories).toBe(1204);
    expect(diff.duplicates).toBe(1);
    expect(await fullState(memory.backend)).toEqual(before);

    now.set('2026-01-02T00:00:00Z');
    const merged = await memory.mergeBranch('feature/auth', { into: 'main' });
    expect(merged.summary()).toBe('Imported: 1204 new memories / Skipped: 1 duplicate / Conflicts: 0');
    const pkce = (await memory.recall('PKCE RFC', { k: 1, types: ['reference'] }))[0]!.memory;
    expect(pkce).toMatchObject({
      namespace: 'reference:main',
      branch: 'main',
      mergedFrom: 'feature/auth',
      mergeId: merged.mergeId,
    });

    const again = await memory.mergeBranch('feature/auth');
    expect(again.counts.imported).toBe(0);
    expect(again.counts.duplicates).toBe(1205);

    now.set('2026-01-03T00:00:00Z');
    await memory.undoMerge(merged.mergeId);
    const project = await memory.backend.count({ tenant: '', namespaces: ['project:main'] });
    expect(project).toBe(1);
    const branches = await memory.listBranches();
    expect(branches).toEqual([
      { branch: 'feature/auth', project: 1204, reference: 1, total: 1205, current: false },
      { branch: 'main', project: 1, reference: 0, total: 1, current: true },
    ]);
  });

  it('a memory edited after a branch merge is not brought back by the next merge of that branch', async () => {
    const now = clock();
    const memory = await memoryStore({ branch: 'feature/a', now });
    await memory.remember({ content: 'Auth uses PKCE', type: 'project' });
    memory.switchBranch('main');
    const first = await memory.mergeBranch('feature/a');
    const copy = (await memory.memories({ namespaces: ['project:main'] }).next()).value as { id: string };
    now.set('2026-01-02T00:00:00Z');
    await memory.update(copy!.id, { content: 'Auth uses PKCE with S256 only' });

    const diff = await memory.diffBranch('feature/a');
    expect(diff.conflicts).toBe(1);
    expect(diff.plan.conflicts[0]).toMatchObject({ id: copy!.id, newer: 'local' });
    const second = await memory.mergeBranch('feature/a');
    expect(second.counts).toMatchObject({ imported: 0, conflicts: 1, keptLocal: 1 });
    const onMain = [];
    for await (const m of memory.memories({ namespaces: ['project:main'] })) onMain.push(m.content);
    expect(onMain).toEqual(['Auth uses PKCE with S256 only']);
    // remote_wins takes the branch's version back over the edit, under the same id.
    const third = await memory.mergeBranch('feature/a', { strategy: 'remote_wins' });
    expect(third.counts).toMatchObject({ imported: 0, overwritten: 1 });
    expect((await memory.get(copy!.id))!.content).toBe('Auth uses PKCE');
    expect(first.counts.imported).toBe(1);
  });

  it('deleteBranch removes scoped memories only, keeps globals and refuses the current branch unless forced', async () => {
    const memory = await memoryStore({ branch: 'feature/x' });
    await memory.remember({ content: 'Global preference', type: 'feedback' });
    await memory.rememberMany(
      Array.from({ length: 1100 }, (_, i) => ({ content: `Scoped note ${i}`, type: 'project' as const })),
    );
    await expect(memory.deleteBranch('feature/x')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    memory.switchBranch('main');
    const result = await memory.deleteBranch('feature/x');
    expect(result.deleted).toBe(1100);
    expect((await memory.stats()).namespaces).toEqual([{ namespace: 'feedback', count: 1 }]);
    expect((await memory.listBranches()).map((b) => b.branch)).toEqual(['main']);
    memory.switchBranch('feature/x');
    await memory.remember({ content: 'Another scoped note', type: 'reference' });
    expect((await memory.deleteBranch('feature/x', { force: true })).deleted).toBe(1);
  });

  it('refuses to merge a branch into itself and bad branch names', async () => {
    const memory = await memoryStore();
    await expect(memory.mergeBranch('main')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(() => memory.switchBranch('')).toThrow(/branch name/);
    expect(memory.branch).toBe('main');
  });
});

describe('git branch detection', () => {
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });

  it('reads the branch, falls back on detached HEAD and outside a repository', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentmem-git-'));
    expect(await detectGitBranch({ cwd: dir, fallback: 'trunk' })).toBe('trunk');
    git(dir, 'init', '-q', '-b', 'feature/auth');
    git(dir, '-c', 'user.email=a@b.c', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'one');
    expect(await detectGitBranch({ cwd: dir })).toBe('feature/auth');
    const memory = await createAgentMemory({
      backend: new InMemoryBackend(),
      embedder: new FakeEmbedder(),
      detectBranch: { cwd: dir },
    });
    expect(memory.branch).toBe('feature/auth');
    git(dir, 'checkout', '-q', '--detach');
    expect(await detectGitBranch({ cwd: dir })).toBe('main');
  });

  it('falls back when git hangs longer than the timeout', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'agentmem-slow-git-'));
    // A "git" that would answer a branch, but only after 5 s.
    writeFileSync(join(bin, 'git'), `#!${process.execPath}\nsetTimeout(() => console.log('feature/slow'), 5000);\n`, {
      mode: 0o755,
    });
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      expect(await detectGitBranch({ cwd: tmpdir(), timeoutMs: 100, fallback: 'develop' })).toBe('develop');
    } finally {
      process.env.PATH = path;
    }
  });

  it('falls back when git itself is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect(await detectGitBranch({ cwd: tmpdir(), fallback: 'develop' })).toBe('develop');
    } finally {
      process.env.PATH = path;
    }
  });
});
