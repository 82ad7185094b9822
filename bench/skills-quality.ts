/**
 * Skill activation quality on real skill libraries: the skills-dev set
 * (../shared/datasets/skills-dev: 241 Cursor rules + 14 Agent Skills, 210
 * labelled messages), loaded through the public API with default settings.
 * Prints top-1, hit@3, false activations on the unrelated group, mean number
 * activated and latency (wall p50/p95 and CPU time per message), per backend.
 *
 *   npm run bench -- skills-quality [--backend memory|sqlite|all] [--misses] [--half 0|1]
 *
 * `--half` scores only the even (0) or odd (1) skill targets' queries: the
 * two halves are how parameters are chosen by cross-validation (pick on one,
 * check on the other) rather than by fitting all 210 messages.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type ActivatedSkill, AgentMemory, InMemoryBackend, type MemoryBackend } from '@agentmem/core';

interface Query {
  id: string;
  group: 'agent-skill' | 'cursor-rule' | 'unrelated';
  kind: 'paraphrase' | 'no-overlap' | 'path' | 'unrelated';
  message: string;
  files: string[];
  expected: string[];
}

export const SKILLS_DEV = resolve(import.meta.dirname, '..', '..', 'shared', 'datasets', 'skills-dev');

async function openBackend(kind: string, dir: string): Promise<MemoryBackend> {
  if (kind === 'memory') return new InMemoryBackend();
  const { SqliteBackend } = await import('@agentmem/sqlite');
  return new SqliteBackend({ path: join(dir, 'skills-quality.db') });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const pct = (n: number, d: number) => (d === 0 ? '   -  ' : `${((100 * n) / d).toFixed(1).padStart(5)}%`);

/** The half a query belongs to: by its target's name, so both queries of a target fall in one half. */
function halfOf(q: Query): number {
  const target = q.id.split(':')[1] ?? q.id;
  let h = 0;
  for (const ch of target) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % 2;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      backend: { type: 'string', default: 'all' },
      misses: { type: 'boolean', default: false },
      half: { type: 'string' },
      data: { type: 'string', default: SKILLS_DEV },
    },
  });
  const data = values.data!;
  if (!existsSync(join(data, 'queries.json'))) {
    console.log(`skills-dev not found at ${data}: nothing to measure (pass --data <dir>).`);
    return;
  }
  let queries = JSON.parse(readFileSync(join(data, 'queries.json'), 'utf8')) as Query[];
  if (values.half !== undefined) queries = queries.filter((q) => halfOf(q) === Number(values.half));
  const backends = values.backend === 'all' ? ['memory', 'sqlite'] : [values.backend!];
  const rows: string[] = [];
  for (const kind of backends) {
    const dir = mkdtempSync(join(tmpdir(), 'agentmem-skills-quality-'));
    try {
      const memory = await AgentMemory.open({ backend: await openBackend(kind, dir) });
      let t = performance.now();
      const rules = await memory.skills.load(join(data, 'rules'));
      const skills = await memory.skills.load(join(data, 'skills'));
      const loaded = rules.skills.length + skills.skills.length;
      const loadMs = performance.now() - t;
      // First activation builds the in-process index: timed apart from the per-message latency.
      t = performance.now();
      await memory.skills.activate('warm up');
      const firstMs = performance.now() - t;
      // One untimed pass warms the JIT, so the figures are the steady state of a running agent.
      for (const q of queries) await memory.skills.activate(q.message, { files: q.files });

      const times: number[] = [];
      const cpuTimes: number[] = [];
      const relevant = { n: 0, top1: 0, hit3: 0, activated: 0 };
      const unrelated = { n: 0, fired: 0, activated: 0 };
      const byKind = new Map<string, { n: number; top1: number }>();
      const misses: string[] = [];
      const cpu = process.cpuUsage();
      const results: ActivatedSkill[][] = [];
      for (const q of queries) {
        const before = process.cpuUsage();
        t = performance.now();
        results.push(await memory.skills.activate(q.message, { files: q.files }));
        times.push(performance.now() - t);
        const used = process.cpuUsage(before);
        cpuTimes.push((used.user + used.system) / 1000);
      }
      const cpuUsed = process.cpuUsage(cpu);
      for (const [i, q] of queries.entries()) {
        const names = results[i]!.filter((a) => a.activatedBy !== 'always').map((a) => a.skill.name);
        if (q.group === 'unrelated') {
          unrelated.n++;
          unrelated.activated += names.length;
          if (names.length > 0) {
            unrelated.fired++;
            misses.push(`  unrelated ${q.id}: ${JSON.stringify(q.message)} -> ${names.join(', ')}`);
          }
          continue;
        }
        relevant.n++;
        relevant.activated += names.length;
        const top1 = names.length > 0 && q.expected.includes(names[0]!);
        const hit3 = names.slice(0, 3).some((n) => q.expected.includes(n));
        if (top1) relevant.top1++;
        if (hit3) relevant.hit3++;
        const key = `${q.group}/${q.kind}`;
        const k = byKind.get(key) ?? { n: 0, top1: 0 };
        k.n++;
        if (top1) k.top1++;
        byKind.set(key, k);
        if (!top1) {
          const detail = results[i]!.map((a) => `${a.skill.name} ${a.score.toFixed(2)}`).join(', ');
          misses.push(
            `  ${hit3 ? 'hit@3' : 'MISS '} ${q.id}: ${JSON.stringify(q.message)} ${q.files.join(' ')} -> ${detail || 'none'} (want ${q.expected.join('|')})`,
          );
        }
      }
      times.sort((a, b) => a - b);
      cpuTimes.sort((a, b) => a - b);
      const cpuMs = (cpuUsed.user + cpuUsed.system) / 1000 / queries.length;
      console.log(
        `\n${kind}: ${loaded} skills loaded in ${loadMs.toFixed(0)} ms, first activation ${firstMs.toFixed(0)} ms, embedder ${memory.embedder.id}`,
      );
      for (const [key, k] of [...byKind].sort()) console.log(`  top-1 ${key.padEnd(24)} ${pct(k.top1, k.n)} (${k.n})`);
      if (values.misses) for (const m of misses) console.log(m);
      rows.push(
        [
          kind.padEnd(9),
          pct(relevant.top1, relevant.n),
          pct(relevant.hit3, relevant.n),
          pct(unrelated.fired, unrelated.n),
          ((relevant.activated + unrelated.activated) / queries.length).toFixed(2).padStart(5),
          percentile(times, 50).toFixed(2).padStart(6),
          percentile(times, 95).toFixed(2).padStart(6),
          percentile(cpuTimes, 50).toFixed(2).padStart(6),
          cpuMs.toFixed(2).padStart(6),
        ].join('  '),
      );
      await memory.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`\n${queries.length} queries${values.half !== undefined ? ` (half ${values.half})` : ''}`);
  console.log('backend    top-1   hit@3  unrelated   mean  wall p50  p95 ms  CPU p50  mean ms');
  for (const row of rows) console.log(row);
}
