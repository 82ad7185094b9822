import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentMemory } from '../agent-memory';
import { InMemoryBackend } from '../backends';
import { MemoryStore } from '../store/memory-store';
import { FakeEmbedder } from '../testing';
import {
  DENSE_SEMANTIC_RANGE,
  libraryMinScore,
  SKILL_SCORE_WEIGHTS,
  SkillRegistry,
  type SkillRegistryOptions,
} from './registry';
import { DEFAULT_ACTIVATION_PARAMETERS } from './activation-parameters';
import { GLOB_SPECIFICITY_SCORE, pathsInMessage } from './signals';
import type { SkillInput } from './skill';

const DOCKER: SkillInput = {
  name: 'docker',
  description: 'Docker best practices for images, containers and compose files',
  content: '## Docker Guidelines\n- Always use multi-stage builds\n- Run containers as a non-root user',
  globPatterns: ['Dockerfile', 'docker-compose*.yml'],
  triggerKeywords: ['docker', 'container', 'docker compose'],
  toolsAllowed: ['docker_build', 'docker_push'],
  importance: 0.8,
};
const PYTHON: SkillInput = {
  name: 'python',
  description: 'Python conventions: typing, pip and pytest',
  content:
    '# Python\n- Type-annotate public functions\n- Install packages with pip in a virtualenv\n- Test with pytest',
  globPatterns: ['**/*.py', 'pyproject.toml'],
  triggerKeywords: ['python', 'pip', 'pytest'],
};
const CI: SkillInput = {
  name: 'ci-cd',
  description: 'CI/CD pipelines: GitHub Actions workflows, caching and fast builds',
  content: '# CI/CD pipelines\n- Cache dependencies so pipeline builds stay fast\n- Run independent jobs in parallel',
  globPatterns: ['.github/workflows/*.yml'],
  triggerKeywords: ['ci', 'github actions'],
};

async function registry(skills: SkillInput[], options?: SkillRegistryOptions) {
  const store = new MemoryStore({ backend: new InMemoryBackend() });
  const registry = new SkillRegistry(store, options);
  await registry.registerMany(skills);
  return registry;
}

const names = (list: { skill: { name: string } }[]) => list.map((a) => a.skill.name);
/** A semantic range no cosine reaches and no lexical part: isolates the keyword and glob signals. */
const NO_SEMANTIC = { semanticRange: { floor: 0.999, ceiling: 1 }, fusionWeights: { dense: 1, keyword: 0 } };

describe('activate: each signal alone', () => {
  it('semantic: a message on the topic of a skill without keywords or globs', async () => {
    const skills = await registry([
      {
        name: 'kubernetes',
        description: 'Kubernetes deployments, replicas and rollouts',
        content: 'Scale deployments by changing replicas; roll back a failed rollout with kubectl rollout undo.',
      },
      PYTHON,
    ]);
    const [first, ...rest] = await skills.activate(
      'scale the kubernetes deployment replicas and roll back the rollout',
    );
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ skill: { name: 'kubernetes' } });
    expect(first!.signals.semantic!.score).toBeGreaterThan(0);
    // No declared keywords: the skill's name acts as one.
    expect(first!.signals.keyword).toMatchObject({ matched: ['kubernetes'], source: 'derived' });
    const [again] = await skills.activate('roll back the failed deployment rollout and scale replicas');
    expect(again).toMatchObject({ skill: { name: 'kubernetes' }, activatedBy: 'semantic' });
  });

  it('keyword: whole words, plural tolerant; counts 0.25 of the score', async () => {
    const skills = await registry([DOCKER, PYTHON], NO_SEMANTIC);
    const [hit] = await skills.activate('start two more containers');
    expect(hit).toMatchObject({
      skill: { name: 'docker' },
      activatedBy: 'keyword',
      signals: { keyword: { matched: ['container'] } },
    });
    expect(hit!.score).toBeCloseTo(SKILL_SCORE_WEIGHTS.keyword + SKILL_SCORE_WEIGHTS.importance * 0.8, 6);
  });

  it('keyword: pip does not fire on "pipeline", python does not fire on "pythonic"', async () => {
    const skills = await registry([PYTHON], NO_SEMANTIC);
    expect(await skills.activate('speed up the pipeline and make it pythonic', { minScore: 0, gapRatio: 0 })).toEqual(
      [],
    );
    expect(names(await skills.activate('pip install requests'))).toEqual(['python']);
    expect(names(await skills.activate('PIP is broken'))).toEqual(['python']);
  });

  it('keyword: C++ and C# are neither C nor each other', async () => {
    const skills = await registry(
      [
        { name: 'cpp', content: 'C++ rules', triggerKeywords: ['c++'] },
        { name: 'csharp', content: 'C# rules', triggerKeywords: ['C#'] },
        { name: 'c', content: 'C rules', triggerKeywords: ['c'] },
      ],
      NO_SEMANTIC,
    );
    const fired = async (message: string) =>
      (await skills.activate(message, { minScore: 0, gapRatio: 0 })).map((a) => a.skill.name).sort();
    expect(await fired('port the C++ templates')).toEqual(['cpp']);
    expect(await fired('c# records, (C++) too')).toEqual(['cpp', 'csharp']);
    expect(await fired('plain c code, plan C')).toEqual(['c']);
    expect(await fired('use c++17 features')).toEqual(['cpp']);
    expect(await fired('notepad++ tips')).toEqual([]);
  });

  it('keyword: inflections match, other words sharing a stem do not', async () => {
    const skills = await registry([DOCKER], NO_SEMANTIC);
    expect(names(await skills.activate('the container is down'))).toEqual(['docker']);
    expect(names(await skills.activate('restart the Containers'))).toEqual(['docker']);
    expect(await skills.activate('this file contains a bug', { minScore: 0 })).toEqual([]);
    const stage = await registry(
      [{ name: 'release', content: 'Release steps', triggerKeywords: ['stage', 'ship'] }],
      NO_SEMANTIC,
    );
    expect((await stage.activate('staging and shipping today'))[0]?.signals.keyword?.matched).toEqual([
      'stage',
      'ship',
    ]);
  });

  it('keyword: a multi-word keyword matches as a phrase', async () => {
    const skills = await registry([{ ...DOCKER, triggerKeywords: ['docker compose'] }], NO_SEMANTIC);
    expect(names(await skills.activate('run docker compose up'))).toEqual(['docker']);
    expect(await skills.activate('compose a letter about docker', { minScore: 0 })).toEqual([]);
  });

  it('glob: the filePath, matched on full path and basename', async () => {
    const skills = await registry([DOCKER, PYTHON, CI], NO_SEMANTIC);
    const [hit, ...rest] = await skills.activate('tidy this up', { filePath: '/home/me/repo/src/app/main.py' });
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({
      skill: { name: 'python' },
      activatedBy: 'glob',
      signals: {
        glob: {
          paths: ['/home/me/repo/src/app/main.py'],
          patterns: ['**/*.py'],
          matches: [{ path: '/home/me/repo/src/app/main.py', pattern: '**/*.py', specificity: 'extension' }],
        },
      },
    });
    // An extension-only glob is half the evidence of a path-specific one.
    expect(hit!.score).toBeCloseTo(
      SKILL_SCORE_WEIGHTS.glob * GLOB_SPECIFICITY_SCORE.extension + SKILL_SCORE_WEIGHTS.importance * 0.7,
      6,
    );
    expect(names(await skills.activate('look at this', { filePath: 'deploy/docker-compose.prod.yml' }))).toEqual([
      'docker',
    ]);
    expect(names(await skills.activate('and this', { filePath: '.github/workflows/ci.yml' }))).toEqual(['ci-cd']);
  });

  it('glob: paths mentioned in the message', async () => {
    const skills = await registry([DOCKER, PYTHON], NO_SEMANTIC);
    expect(names(await skills.activate('review the Dockerfile'))).toEqual(['docker']);
    expect(names(await skills.activate('edit src/app/main.py please'))).toEqual(['python']);
    expect(names(await skills.activate('see `pyproject.toml`.'))).toEqual(['python']);
  });
});

describe('activate: combining', () => {
  it('adds the weighted signals and reports them all', async () => {
    const skills = await registry([DOCKER, PYTHON, CI]);
    const [hit] = await skills.activate('fix the docker build', { filePath: 'Dockerfile' });
    expect(hit).toMatchObject({ skill: { name: 'docker' }, activatedBy: 'combined' });
    const s = hit!.signals;
    expect(s.semantic).toBeDefined();
    expect(s.keyword!.matched).toEqual(['docker']);
    expect(s.glob!.paths).toEqual(['Dockerfile']);
    const w = SKILL_SCORE_WEIGHTS;
    expect(hit!.score).toBeCloseTo(w.semantic * s.semantic!.score + w.keyword + w.glob + w.importance * 0.8, 6);
  });

  it('drops skills below the minimum score (0.30) unless a keyword or glob fired', async () => {
    // A wide cosine range, so that loosely related skills get small semantic scores.
    const skills = await registry([DOCKER, PYTHON, CI], { semanticRange: { floor: 0, ceiling: 0.6 } });
    const message = 'deploy the containers to staging';
    const everything = await skills.activate(message, { minScore: 0, gapRatio: 0, k: 10 });
    const weak = everything.filter((a) => a.activatedBy === 'semantic' && a.score < 0.3);
    expect(weak.length).toBeGreaterThan(0);
    const kept = await skills.activate(message, { gapRatio: 0, k: 10 });
    for (const w of weak) expect(names(kept)).not.toContain(w.skill.name);
    expect(names(kept)).toContain('docker');
  });

  it('a skill beside one that reached the minimum needs only 0.20; alone it still needs 0.30', async () => {
    const stripe: SkillInput = {
      name: 'stripe',
      description: 'Stripe payments: checkout sessions, webhooks and idempotency keys',
      content:
        '# Stripe\n- Verify webhook signatures\n- Send an idempotency key with every charge so a retried request never charges twice',
    };
    const postgres: SkillInput = {
      name: 'postgresql',
      description: 'PostgreSQL schema design, indexes and transactions',
      content:
        '# PostgreSQL\n- Wrap related writes in one transaction\n- Add a unique constraint where duplicates must never exist',
    };
    const react: SkillInput = {
      name: 'react',
      description: 'React components, hooks and state',
      content: '# React\n- Keep components small\n- Derive state instead of duplicating it',
    };
    const skills = await registry([stripe, postgres, react]);
    // Both halves of the problem: the database's (unique constraint) and the payment's (a retried webhook).
    const message = 'the webhook is retried and duplicate rows lack a unique constraint';
    const { candidates } = await skills.explain(message);
    const score = (name: string) => candidates.find((c) => c.name === name)!.score;
    expect(score('postgresql')).toBeGreaterThanOrEqual(0.3);
    expect(score('stripe')).toBeLessThan(0.3);
    expect(names(await skills.activate(message))).toEqual(['postgresql', 'stripe']);
    // The old rule, every skill on its own: the companion minimum at the minimum.
    const strict = await registry([stripe, postgres, react], { parameters: { companionMinScore: 0.3 } });
    expect(names(await strict.activate(message))).toEqual(['postgresql']);
    // No skill reaches the minimum: a message the library only brushes activates nothing.
    const brushed = 'the charge is retried and the rows are duplicated in a transaction';
    const weak = (await skills.explain(brushed)).candidates;
    expect(weak[0]!.score).toBeGreaterThanOrEqual(0.2);
    expect(weak[0]!.score).toBeLessThan(0.3);
    expect(await skills.activate(brushed)).toEqual([]);
    expect(await skills.activate("what's the weather like")).toEqual([]);
  });

  it('smallLibrarySkills / smallLibraryStep: a small library needs a higher minimum, when asked', async () => {
    const postgres: SkillInput = {
      name: 'postgresql',
      description: 'PostgreSQL schema design, indexes and transactions',
      content: '# PostgreSQL\n- Wrap related writes in one transaction\n- Add a unique constraint',
    };
    const react: SkillInput = {
      name: 'react',
      description: 'React components, hooks and state',
      content: '# React\n- Keep components small',
    };
    const message = 'wrap the writes in one transaction';
    const plain = await registry([postgres, react]);
    const score = (await plain.explain(message)).candidates.find((c) => c.name === 'postgresql')!.score;
    expect(score).toBeGreaterThanOrEqual(0.3);
    expect(score).toBeLessThan(0.6);
    expect(names(await plain.activate(message))).toEqual(['postgresql']);
    // 2 skills of 8: two halvings, 0.3 + 2 × 0.15 = 0.6.
    const calibrated = await registry([postgres, react], {
      parameters: { smallLibrarySkills: 8, smallLibraryStep: 0.15 },
    });
    expect(await calibrated.activate(message)).toEqual([]);
    const { candidates } = await calibrated.explain(message);
    expect(candidates.find((c) => c.name === 'postgresql')!.reason).toContain('minimum 0.6');
    // An explicit minScore is taken as given.
    expect(names(await calibrated.activate(message, { minScore: 0.3 }))).toEqual(['postgresql']);
    expect(libraryMinScore(DEFAULT_ACTIVATION_PARAMETERS, 2)).toBe(0.3);
  });

  it('gap filter: drops skills below 65% of the top score', async () => {
    const a: SkillInput = {
      name: 'a',
      content: 'alpha',
      triggerKeywords: ['deploy'],
      globPatterns: ['infra/*.tf'],
      importance: 0.7,
    };
    const b: SkillInput = { name: 'b', content: 'beta', triggerKeywords: ['deploy'], importance: 0.5 };
    const skills = await registry([a, b], NO_SEMANTIC);
    // a: 0.25 + 0.15 + 0.035 = 0.435; b: 0.275 < 0.65 × 0.435.
    expect(names(await skills.activate('deploy infra/main.tf'))).toEqual(['a']);
    expect(names(await skills.activate('deploy infra/main.tf', { gapRatio: 0 }))).toEqual(['a', 'b']);
  });

  it('returns at most k skills (default 3), best first', async () => {
    const many = ['one', 'two', 'three', 'four', 'five'].map((name, i) => ({
      name,
      content: `Skill ${name}`,
      triggerKeywords: ['release'],
      importance: 0.5 + i / 10,
    }));
    const skills = await registry(many, NO_SEMANTIC);
    expect(names(await skills.activate('cut a release'))).toEqual(['five', 'four', 'three']);
    expect(names(await skills.activate('cut a release', { k: 1 }))).toEqual(['five']);
    expect(await skills.activate('cut a release', { k: 0 })).toEqual([]);
  });

  it('alwaysApply skills are always in, first, and not counted in k', async () => {
    const style: SkillInput = { name: 'house-style', content: 'Answer in British English.', alwaysApply: true };
    const skills = await registry([DOCKER, PYTHON, style]);
    const unrelated = await skills.activate("what's the weather like");
    expect(unrelated).toMatchObject([{ skill: { name: 'house-style' }, activatedBy: 'always' }]);
    expect(names(await skills.activate('pip install flask', { k: 1 }))).toEqual(['house-style', 'python']);
    expect(names(await skills.activate(''))).toEqual(['house-style']);
  });
});

describe('activate: what a description says', () => {
  it('a skill whose description says when it applies is not lost for its long body (descriptionWeight)', async () => {
    // executing-plans says "review checkpoints" in its description, then 25 lines of steps; team-notes
    // has the same words in one short line of text. Scored over all fields at once, the long body
    // dilutes the description and the short note wins; the description's own relevance puts the
    // skill it describes first.
    const steps = Array.from({ length: 25 }, (_, i) => `- Step ${i}: open the file, edit the function, save the work.`);
    const plans: SkillInput = {
      name: 'executing-plans',
      description: 'Use when you have a written plan to carry out with review checkpoints',
      content: `# Executing\n${steps.join('\n')}`,
    };
    const notes: SkillInput = {
      name: 'team-notes',
      description: 'Notes for the team',
      content: '# Notes\n- Review each checkpoint of the plan with the team.',
    };
    const filler = Array.from({ length: 8 }, (_, i) => ({
      name: `topic-${i}`,
      description: `Guidelines for area ${i}: naming, structure and style`,
      content: `# Area ${i}\n- Keep modules small.\n- Write tests for area ${i}.`,
    }));
    const message = 'carry out this plan and stop at review checkpoints';
    const withDescriptions = await registry([plans, notes, ...filler]);
    expect(names(await withDescriptions.activate(message))[0]).toBe('executing-plans');
    const off = await registry([plans, notes, ...filler], { parameters: { descriptionWeight: 0 } });
    expect(names(await off.activate(message))[0]).toBe('team-notes');
  });
});

describe('activate: semantic scores are absolute', () => {
  it('an unrelated message activates nothing, even with a single skill', async () => {
    for (const set of [[DOCKER, PYTHON, CI], [DOCKER]]) {
      const skills = await registry(set);
      expect(await skills.activate("what's the weather like")).toEqual([]);
      // Not even the best candidate gets a semantic score: nothing is normalised to the top.
      const all = await skills.activate("what's the weather like", { minScore: 0, gapRatio: 0, k: 10 });
      for (const a of all) expect(a.signals.semantic?.score ?? 0).toBeLessThan(0.1);
    }
  });

  it('the shipped examples behave as the demo shows', async () => {
    const store = new MemoryStore({ backend: new InMemoryBackend() });
    const skills = new SkillRegistry(store);
    const { problems } = await skills.load(join(__dirname, '../../../../examples/skills'));
    expect(problems).toEqual([]);
    expect(names(await skills.activate('deploy the containers to staging'))).toEqual(['docker']);
    expect(names(await skills.activate('review the Dockerfile'))).toEqual(['docker']);
    expect(names(await skills.activate('optimize the CI/CD pipeline for faster builds'))).toEqual(['ci-cd']);
    expect(names(await skills.activate('edit src/app/main.py'))).toEqual(['python']);
    expect(await skills.activate("what's the weather like")).toEqual([]);
  });
});

describe('activate: embedders and options', () => {
  it('uses the dense range and equal fusion weights for a non-lexical embedder', async () => {
    const store = new MemoryStore({ backend: new InMemoryBackend(), embedder: new FakeEmbedder({ dimension: 256 }) });
    const skills = new SkillRegistry(store);
    await skills.registerMany([DOCKER, PYTHON]);
    const [hit] = await skills.activate('docker\nDocker best practices for images, containers and compose files');
    expect(hit?.skill.name).toBe('docker');
    expect(hit!.signals.semantic!.cosine).toBeGreaterThan(DENSE_SEMANTIC_RANGE.ceiling);
    expect(await skills.activate("what's the weather like")).toEqual([]);
  });

  it('takes skillActivation options through createAgentMemory', async () => {
    const memory = await createAgentMemory({ backend: new InMemoryBackend(), skillActivation: NO_SEMANTIC });
    await memory.skills.register({ name: 'k8s', content: 'Scale deployments with kubectl and watch the rollout.' });
    expect(await memory.skills.activate('scale deployments with kubectl and watch the rollout')).toEqual([]);
  });
});

describe('activate: input', () => {
  it('rejects a non-string message, a bad k and a bad filePath', async () => {
    const skills = await registry([DOCKER]);
    await expect(skills.activate(42 as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(skills.activate('x', { k: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(skills.activate('x', { filePath: [3] as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('finds paths in a message', () => {
    expect(
      pathsInMessage('edit src/app/main.py, then review the Dockerfile and "config/.env". See https://x.io/a.html'),
    ).toEqual(['src/app/main.py', 'Dockerfile', 'config/.env']);
    expect(pathsInMessage('version 1.2 is out, e.g. today, i.e. now')).toEqual([]);
  });
});
