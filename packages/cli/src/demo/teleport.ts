import { join } from 'node:path';
import type { DemoContext } from './demo-context';

/**
 * The two-agent round trip: agent A snapshots its store, agent B opens the
 * file as an ordinary store and adds a finding (and rewords one memory),
 * A diffs and merges it back, re-merging is a no-op, and undo rolls it back.
 */
export async function teleportSection(d: DemoContext): Promise<void> {
  const a = d.memory;
  const path = join(d.workDir, 'handoff.agentmem');
  d.heading('Teleport: agent A snapshots its memory');
  const snap = await a.snapshot(path);
  d.print(snap.summary());
  d.print(
    `manifest: format v${snap.manifest.formatVersion}, embedder ${snap.manifest.embedder.id}, source agent ${snap.manifest.sourceAgentId ?? '-'}`,
  );

  d.heading('Teleport: agent B opens the file and works in it');
  const b = await d.cli.openMemory({ path, branch: a.branch, agentId: 'agent-b' });
  const finding = await b.remember({
    type: 'project',
    content: 'The flaky checkout test fails because it assumes the Europe/Berlin time zone; pin TZ=UTC in CI.',
    importance: 0.8,
  });
  const [freeze] = (await b.recall('release freeze', { k: 1, types: ['project'], reinforce: false })).map(
    (r) => r.memory,
  );
  // A moment after A's last change, so newer_wins takes B's wording.
  await new Promise((r) => setTimeout(r, 5));
  const reworded = freeze
    ? await b.update(freeze.id, { content: 'Release 2.4 is frozen: only bug fixes until the tag.' })
    : undefined;
  d.print(`B remembered: ${finding.content}`);
  if (reworded) d.print(`B reworded ${reworded.id}: ${reworded.content}`);
  await b.close(); // hand the file back

  d.heading('Teleport: A diffs the file (writes nothing)');
  const diff = await a.diff(path);
  d.print(diff.summary());
  for (const c of diff.plan.conflicts) {
    d.print(
      `conflict ${c.id}: local "${c.local.memory?.content}" vs remote "${c.remote.memory?.content}" (newer: ${c.newer})`,
    );
  }

  d.heading('Teleport: A merges (newer_wins), then merges again');
  const merged = await a.merge(path);
  d.print(merged.summary());
  const again = await a.merge(path);
  d.print(`again: ${again.summary()}`);

  d.heading('Teleport: roll back the import');
  const undo = await a.undoMerge(merged.mergeId);
  d.print(undo.summary());

  d.summary.teleport = {
    snapshot: { manifest: snap.manifest },
    diff: diff.toJSON().counts,
    merge: { ...merged.toJSON(), summary: merged.summary() },
    remerge: again.summary(),
    undo: undo.toJSON(),
  };
}
