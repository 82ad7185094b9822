/**
 * Skill activation over many registered skills (goal: p50 <= 1 ms CPU per
 * message at 1,000 skills, every backend): semantic search + keyword and glob matching over
 * every skill, scoring, gap filter.
 *
 *   npm run bench -- skills [--count 500] [--runs 200] [--backend memory|sqlite]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentMemory, InMemoryBackend, type MemoryBackend, type SkillInput } from '@agentmem/core';

const TOPICS = [
  'docker',
  'kubernetes',
  'python',
  'typescript',
  'react',
  'postgres',
  'redis',
  'kafka',
  'terraform',
  'aws',
  'graphql',
  'rust',
  'golang',
  'java',
  'android',
  'swift',
  'css',
  'security',
  'testing',
  'logging',
];
const ASPECTS = [
  'performance',
  'migrations',
  'deployment',
  'code review',
  'error handling',
  'naming',
  'caching',
  'monitoring',
  'packaging',
  'documentation',
  'accessibility',
  'configuration',
  'upgrades',
  'debugging',
  'style',
  'ci pipelines',
  'secrets',
  'backups',
  'scaling',
  'onboarding',
  'releases',
  'profiling',
  'linting',
  'dependencies',
  'observability',
];
const EXT: Record<string, string> = {
  python: 'py',
  typescript: 'ts',
  react: 'tsx',
  rust: 'rs',
  golang: 'go',
  java: 'java',
  swift: 'swift',
  css: 'css',
};

function skills(count: number): SkillInput[] {
  const out: SkillInput[] = [];
  for (let i = 0; i < count; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    const aspect = ASPECTS[Math.floor(i / TOPICS.length) % ASPECTS.length]!;
    const ext = EXT[topic];
    out.push({
      name: `${topic}-${aspect.replace(/ /g, '-')}-${i}`,
      description: `${aspect} guidelines for ${topic} projects`,
      content: `## ${topic} ${aspect}\n- Prefer small, reviewed changes to ${topic} ${aspect}.\n- Measure before and after; write down what changed and why.\n- Keep ${aspect} decisions in the repository next to the code.`,
      triggerKeywords: [topic, aspect],
      globPatterns: ext ? [`**/*.${ext}`] : [],
      importance: 0.5 + (i % 5) / 10,
    });
  }
  return out;
}

const MESSAGES = [
  'deploy the containers to staging with docker',
  'review the Dockerfile',
  'optimize the CI/CD pipeline for faster builds',
  "what's the weather like",
  'edit src/app/main.py and fix the failing tests',
  'the postgres migrations are slow, can you profile them?',
  'add caching to the graphql resolvers',
];

async function openBackend(kind: string, dir: string): Promise<MemoryBackend> {
  if (kind === 'memory') return new InMemoryBackend();
  if (kind === 'sqlite') {
    const { SqliteBackend } = await import('@agentmem/sqlite');
    return new SqliteBackend({ path: join(dir, 'skills-bench.db') });
  }
  throw new Error(`Unknown backend ${kind}: use memory or sqlite.`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      count: { type: 'string', default: '500' },
      runs: { type: 'string', default: '200' },
      backend: { type: 'string', default: 'memory' },
    },
  });
  const count = Number(values.count);
  const runs = Number(values.runs);
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-skills-bench-'));
  try {
    const memory = await AgentMemory.open({ backend: await openBackend(values.backend!, dir) });
    let t = performance.now();
    await memory.skills.registerMany(skills(count));
    console.log(`registered ${count} skills (${values.backend}) in ${(performance.now() - t).toFixed(0)} ms`);

    // Warm-up: the first call builds the in-process index, the next ones warm the JIT.
    for (let i = 0; i < 50; i++) await memory.skills.activate(MESSAGES[i % MESSAGES.length]!);
    const times: number[] = [];
    const cpuTimes: number[] = [];
    let activated = 0;
    // CPU time per call as well as wall time: on a shared machine the wall clock also counts other processes.
    for (let i = 0; i < runs; i++) {
      const message = MESSAGES[i % MESSAGES.length]!;
      const cpu = process.cpuUsage();
      t = performance.now();
      const result = await memory.skills.activate(message, { files: i % 2 ? ['src/app/main.py'] : [] });
      times.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      cpuTimes.push((used.user + used.system) / 1000);
      activated += result.length;
    }
    times.sort((a, b) => a - b);
    cpuTimes.sort((a, b) => a - b);
    const mean = times.reduce((s, x) => s + x, 0) / times.length;
    const cpuMean = cpuTimes.reduce((s, x) => s + x, 0) / cpuTimes.length;
    console.log(
      `activate over ${count} skills, ${runs} messages: wall mean ${mean.toFixed(2)} ms, p50 ${percentile(times, 50).toFixed(2)} ms, ` +
        `p95 ${percentile(times, 95).toFixed(2)} ms; CPU p50 ${percentile(cpuTimes, 50).toFixed(2)} ms, p95 ${percentile(cpuTimes, 95).toFixed(2)} ms, ` +
        `mean ${cpuMean.toFixed(2)} ms (avg ${(activated / runs).toFixed(1)} skills active)`,
    );
    for (const message of MESSAGES.slice(0, 4)) {
      const names = (await memory.skills.activate(message)).map((a) => `${a.skill.name} (${a.score.toFixed(2)})`);
      console.log(`  ${JSON.stringify(message)} -> ${names.join(', ') || 'none'}`);
    }
    await memory.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
