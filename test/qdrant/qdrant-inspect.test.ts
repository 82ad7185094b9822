import { createQdrantMemory } from '@agentmem/qdrant';
import { afterEach, expect, it } from 'vitest';
import { lifecycle } from '../../packages/cli/src/commands/inspect';
import { http, login } from '../../packages/inspector/src/test-fixtures/http';
import { runCli } from '../cli/run-cli';
import { describeWithSpec, useFakeQdrant } from './helpers';

const original = lifecycle.waitForStop;
afterEach(() => {
  lifecycle.waitForStop = original;
});

describeWithSpec('agentmem inspect --qdrant-url', () => {
  const ctx = useFakeQdrant();

  // --qdrant is the old spelling, kept as a hidden alias.
  it.each(['--qdrant-url', '--qdrant'])(
    'inspects a Qdrant collection through the same public API as SQLite (%s)',
    async (flag) => {
      const collection = `inspect_${flag.length}_${Date.now()}`;
      const writer = await createQdrantMemory({
        url: ctx.fake.url,
        collection,
        checkCompatibility: false,
        branch: 'main',
      });
      await writer.rememberMany([
        { content: 'The user prefers dark mode', type: 'user' },
        { content: 'Deploys happen on Tuesdays', type: 'project' },
      ]);
      await writer.close();
      let overview: { store: { provider: string }; totals: { active: number } } | undefined;
      lifecycle.waitForStop = async (inspector) => {
        const session = await login(inspector.url);
        overview = (await http(`${session.origin}/api/overview`, { headers: session.headers })).json();
      };
      const run = await runCli(['--branch', 'main', 'inspect', flag, ctx.fake.url, '--qdrant-collection', collection]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`collection ${collection}`);
      expect(overview?.store.provider).toBe('qdrant');
      expect(overview?.totals.active).toBe(2);
    },
  );
});
