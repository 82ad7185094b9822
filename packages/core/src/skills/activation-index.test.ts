import { describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../backends';
import { MemoryStore } from '../store/memory-store';
import { americanSpelling, lexicalTerms, mentionContexts, nameAcronym, pathWords, splitName } from './activation-text';
import {
  type ActivationParametersInput,
  DEFAULT_ACTIVATION_PARAMETERS,
  resolveActivationParameters,
} from './activation-parameters';
import { SkillRegistry } from './registry';
import { fileTypeName, fileTypeNames, globSpecificity, looksLikeFile, pathsInMessage } from './signals';
import type { SkillInput } from './skill';

const names = (list: { skill: { name: string } }[]) => list.map((a) => a.skill.name);

async function registry(skills: SkillInput[], backend = new InMemoryBackend()) {
  const registry = new SkillRegistry(new MemoryStore({ backend }));
  await registry.registerMany(skills);
  return registry;
}

const CATCH_ALL: SkillInput = {
  name: 'clean-code',
  description: 'General clean code guidelines for naming and small functions',
  content: '# Clean code\n- Name things for what they do.',
  globPatterns: ['**/*'],
};
const PRISMA: SkillInput = {
  name: 'prisma',
  description: 'Prisma ORM schema, migrations and client usage',
  content:
    '# Prisma\n## Schema design\n- Add @@unique for composite keys.\n## Migrations\n- Never edit an applied migration.',
  globPatterns: ['**/*.prisma'],
};
const REACT_QUERY: SkillInput = {
  name: 'react-query',
  description: 'Server state with TanStack Query: caching, invalidation and mutations',
  content: '# TanStack Query\n## Invalidation\n- Invalidate queries after a mutation.',
  globPatterns: ['**/*.{ts,tsx}'],
};

describe('glob evidence by specificity', () => {
  it('classifies catch-alls, extension-only globs and path-specific ones', () => {
    for (const p of ['**/*', '**', '*', '**/*.*', './**/*']) expect(globSpecificity(p)).toBe('catch-all');
    for (const p of ['**/*.py', '*.py', '**/*.{ts,tsx}']) expect(globSpecificity(p)).toBe('extension');
    for (const p of ['Dockerfile', '.github/workflows/*.yml', 'src/**/*.ts', 'prisma/schema.prisma'])
      expect(globSpecificity(p)).toBe('path');
  });

  it('a catch-all glob is no evidence: it activates nothing, and explain says why', async () => {
    const skills = await registry([CATCH_ALL, PRISMA]);
    expect(await skills.activate('how many tablespoons in a cup?', { files: ['holiday-photos.zip'] })).toEqual([]);
    const explained = await skills.explain('how many tablespoons in a cup?', { files: ['holiday-photos.zip'] });
    const clean = explained.candidates.find((c) => c.name === 'clean-code');
    expect(clean).toMatchObject({ status: 'no-evidence', signals: { glob: { score: 0 } } });
    expect(clean!.signals.glob!.matches).toEqual([
      { path: 'holiday-photos.zip', pattern: '**/*', specificity: 'catch-all' },
    ]);
  });

  it('an extension few skills claim activates on its own; one most skills claim is weaker', async () => {
    const skills = await registry([PRISMA, REACT_QUERY, CATCH_ALL]);
    const [hit] = await skills.activate('add a unique constraint here', { files: ['prisma/schema.prisma'] });
    expect(hit?.skill.name).toBe('prisma');
    const many = await registry(
      Array.from({ length: 12 }, (_, i) => ({ name: `ts-${i}`, content: `rule ${i}`, globPatterns: ['**/*.ts'] })),
    );
    const explained = await many.explain('tidy', { files: ['src/a.ts'] });
    for (const c of explained.candidates) expect(c.signals.glob!.score).toBeLessThan(0.5);
    expect(await many.activate('tidy', { files: ['src/a.ts'] })).toEqual([]);
  });
});

describe('a skill named for a file type', () => {
  const PDF: SkillInput = {
    name: 'pdf',
    description: 'Extracting text and tables, merging and splitting documents, filling forms',
    content: '# PDF\n- Read with pypdf.',
  };
  const BASH: SkillInput = {
    name: 'bash',
    description: 'Robust scripting: error handling, quoting, variables',
    content: '# Bash\n- Start with set -euo pipefail.',
    globPatterns: ['**/*'],
  };
  const C_SHARP: SkillInput = { name: 'c-sharp', description: 'C# conventions', content: '# C#\n- Use records.' };
  const XML: SkillInput = { name: 'xml', description: 'XML documents and schemas', content: '# XML' };

  it('claims files of that type as an extension-only glob would, and explain says it was the name', async () => {
    const skills = await registry([PDF, BASH, C_SHARP, XML, CATCH_ALL, PRISMA]);
    // Linguist's names and aliases: deploy.sh is Shell, alias bash; EnemySpawner.cs is C#, alias csharp.
    expect(names(await skills.activate('what is the total?', { files: ['mail/invoice_march.pdf'] }))).toEqual(['pdf']);
    expect(names(await skills.activate('why does this fail?', { files: ['scripts/deploy.sh'] }))).toEqual(['bash']);
    expect(names(await skills.activate('tidy this up', { files: ['Assets/EnemySpawner.cs'] }))).toEqual(['c-sharp']);
    const explained = await skills.explain('why does this fail?', { files: ['scripts/deploy.sh'] });
    expect(explained.candidates.find((c) => c.name === 'bash')?.signals.glob).toEqual({
      score: 0.5,
      paths: ['scripts/deploy.sh'],
      patterns: ['**/*'],
      matches: [
        { path: 'scripts/deploy.sh', pattern: '**/*', specificity: 'catch-all' },
        { path: 'scripts/deploy.sh', pattern: 'bash', specificity: 'extension', byName: true },
      ],
    });
    // .ts is TypeScript's first extension and only one of XML's (Qt translations): not an XML file.
    expect(await skills.activate('tidy this up', { files: ['src/app.ts'] })).toEqual([]);
    // Other skills' catch-alls stay no evidence.
    expect(explained.candidates.find((c) => c.name === 'clean-code')?.status).toBe('no-evidence');
  });

  it('adds nothing to a glob that already claims the file', async () => {
    const python: SkillInput = { name: 'python', content: '# Python', globPatterns: ['**/*.py'] };
    const skills = await registry([python, PDF]);
    const explained = await skills.explain('tidy this up', { files: ['src/app.py'] });
    expect(explained.candidates.find((c) => c.name === 'python')?.signals.glob?.matches).toEqual([
      { path: 'src/app.py', pattern: '**/*.py', specificity: 'extension' },
    ]);
  });

  it('knows names from the extension itself and from well-known file names', () => {
    expect(fileTypeNames('reports/Q3.XLSX')).toEqual(['xlsx']);
    expect(fileTypeNames('deploy/Dockerfile')).toEqual(expect.arrayContaining(['dockerfile', 'containerfile']));
    expect(fileTypeNames('scripts/deploy.sh')).toEqual(expect.arrayContaining(['sh', 'shell', 'bash', 'zsh']));
    expect(fileTypeNames('src/app.ts')).toEqual(['ts', 'typescript']);
    expect(fileTypeNames('README')).toEqual([]);
    expect(fileTypeName('C#')).toBe('c#');
    expect(fileTypeName('c-sharp')).toBe('csharp');
    expect(fileTypeName('Jupyter Notebook')).toBe('jupyternotebook');
  });
});

describe('file context', () => {
  it('takes only words that look like files from the message', () => {
    expect(
      pathsInMessage(
        'ask claude.ai about shadcn/ui, call client.messages.create, check invoice.zip, Next.js and src/app/page.tsx',
      ),
    ).toEqual(['invoice.zip', 'src/app/page.tsx']);
    for (const f of ['main.py', 'schema.prisma', 'Dockerfile', '.env', 'docs/site.com', 'boarding-pass.pdf'])
      expect(looksLikeFile(f)).toBe(true);
    expect(pathsInMessage('this image runs as root; see the Makefile')).toEqual(['Makefile']);
    for (const f of ['example.com', 'github.com/org/repo.git', 'CI/CD', 'and/or', 'os.path.join', 'root'])
      expect(looksLikeFile(f)).toBe(false);
  });

  it('files and filePath are both matched against globs', async () => {
    const skills = await registry([PRISMA, REACT_QUERY]);
    const explained = await skills.explain('look at these', {
      files: ['prisma/schema.prisma'],
      filePath: 'src/hooks/useTodos.ts',
    });
    expect(explained.paths).toEqual(['prisma/schema.prisma', 'src/hooks/useTodos.ts']);
    expect(names(await skills.activate('look', { files: ['prisma/schema.prisma'] }))).toEqual(['prisma']);
    await expect(skills.activate('x', { files: 'a.ts' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('keywords without declarations and library-aware relevance', () => {
  it("a skill's whole name acts as a keyword when it declares none", async () => {
    const skills = await registry([PRISMA, REACT_QUERY, CATCH_ALL]);
    const [hit] = await skills.activate('why does React Query refetch on window focus?');
    expect(hit).toMatchObject({
      skill: { name: 'react-query' },
      signals: { keyword: { matched: ['react query'], source: 'derived' } },
    });
    // A part of a name alone is not a keyword ("react" is also a verb).
    const explained = await skills.explain('how should I react to this?');
    expect(explained.candidates.find((c) => c.name === 'react-query')?.signals.keyword).toBeUndefined();
  });

  it('a distinctive word of the library counts more than a common one, and one stray word is nothing', async () => {
    const library: SkillInput[] = [
      PRISMA,
      REACT_QUERY,
      ...Array.from({ length: 8 }, (_, i) => ({
        name: `guide-${i}`,
        description: `Schema and migrations guide number ${i}`,
        content: `# Guide ${i}\n- Keep schema changes small.`,
      })),
    ];
    const skills = await registry(library);
    const explained = await skills.explain('composite unique keys in the prisma schema');
    expect(explained.candidates[0]!.name).toBe('prisma');
    const prisma = explained.candidates[0]!.signals.semantic!;
    const guide = explained.candidates.find((c) => c.name === 'guide-0')?.signals.semantic?.lexical ?? 0;
    expect(prisma.lexical).toBeGreaterThan(guide);
    expect(await skills.activate('what is the best invalidation of a parking ticket?')).toEqual([]);
  });

  it('a name that is an everyday word of the library is a weaker keyword than a name few skills write', async () => {
    // `requests` (the Python library) is a word half of these skills write; `fastapi` is in one.
    const library: SkillInput[] = [
      {
        name: 'requests',
        description: 'HTTP for Python with the requests library',
        content: '# Requests\n- Set timeouts.',
      },
      { name: 'fastapi', description: 'FastAPI routes and dependencies', content: '# FastAPI\n- Use Depends.' },
      ...Array.from({ length: 20 }, (_, i) => ({
        name: `service-${i}`,
        description: `Service ${i} conventions`,
        content: `# Service ${i}\n- ${i % 2 === 0 ? 'Retry failed requests with backoff.' : 'Log every step.'}`,
      })),
    ];
    const keyword = async (message: string, name: string, parameters: ActivationParametersInput = {}) => {
      const skills = new SkillRegistry(new MemoryStore({ backend: new InMemoryBackend() }), { parameters });
      await skills.registerMany(library);
      return (await skills.explain(message)).candidates.find((c) => c.name === name)?.signals.keyword?.score;
    };
    const everyday = await keyword('two requests at the same time lose updates', 'requests');
    expect(everyday).toBeGreaterThan(0);
    expect(everyday).toBeLessThan(0.6);
    expect(await keyword('a FastAPI route for uploads', 'fastapi')).toBe(1);
    // nameRarityFull 0 turns the weighing off: every name keyword is worth derivedKeywordStrength.
    expect(await keyword('two requests at the same time lose updates', 'requests', { nameRarityFull: 0 })).toBe(1);
  });
});

describe('lexical relevance over skill text', () => {
  const filler = Array.from({ length: 8 }, (_, i) => ({
    name: `topic-${i}`,
    description: `Guidelines for area ${i}: naming, structure and review`,
    content: `# Area ${i}\n- Keep modules small.\n- Write tests for area ${i}.`,
  }));

  it("the string literals of a skill's code examples are not what it is about; its identifiers are", async () => {
    const chains: SkillInput = {
      name: 'llm-chains',
      description: 'Composing LLM chains and tools',
      content: [
        '# Tools',
        '```python',
        '@tool',
        'def get_current_weather(location: str) -> str:',
        '    return "It\'s 25 degrees Celsius and sunny in Tokyo."',
        'prompt = ChatPromptTemplate.from_template("Tell me a joke about {topic} and penguins")',
        '```',
      ].join('\n'),
    };
    const skills = await registry([chains, ...filler]);
    for (const message of ['Convert 72 degrees Fahrenheit to Celsius.', 'Tell me a joke about penguins.']) {
      const explained = await skills.explain(message);
      const lexical = explained.candidates.find((c) => c.name === 'llm-chains')?.signals.semantic?.lexical ?? 0;
      expect(lexical, message).toBe(0);
      expect(await skills.activate(message), message).toEqual([]);
    }
    const [hit] = await skills.activate('my get_current_weather tool never gets called by the ChatPromptTemplate');
    expect(hit?.skill.name).toBe('llm-chains');
  });

  it("a docstring in a skill's code example is made-up data too, across lines; the prose and identifiers still count", async () => {
    const docstrings: SkillInput = {
      name: 'docstrings',
      description: 'Google style docstrings for public functions, rendered by the API documentation generator',
      content: [
        '# Docstrings',
        'Document every public function with a Google style docstring.',
        '```python',
        'def apply_rate(price, percentage):',
        '    """Applies an early-payment discount to an invoice total.',
        '',
        '    Refund rules for overdue invoices are in the billing policy.',
        '    """',
        "    '''Another made-up example: loyalty discount for invoice totals.'''",
        '```',
      ].join('\n'),
    };
    const skills = await registry([docstrings, ...filler]);
    const message = 'add the early-payment discount to invoice totals, and refund overdue invoices';
    const lexical = (await skills.explain(message)).candidates.find((c) => c.name === 'docstrings')?.signals.semantic
      ?.lexical;
    // The lexical relevance only: the hashing embedder's vector still reads the first 1,000 characters.
    expect(lexical ?? 0).toBe(0);
    const [hit] = await skills.activate('write a Google style docstring for apply_rate');
    expect(hit?.skill.name).toBe('docstrings');
  });

  it('a word pair of the skill counts more than the same two words scattered in another', async () => {
    const lambda: SkillInput = {
      name: 'serverless-functions',
      description: 'Serverless function handlers: cold start latency and initialisation',
      content: '# Handlers\n- Initialise clients outside the handler.',
    };
    const storage: SkillInput = {
      name: 'archive-storage',
      description: 'Cold storage for cold archives: start a restore, start a copy',
      content: '# Cold archives\n- Move old objects to cold storage.\n- Start restores early.',
    };
    const skills = await registry([lambda, storage, ...filler]);
    const explained = await skills.explain('the cold start is slow');
    const lexical = (name: string) => explained.candidates.find((c) => c.name === name)?.signals.semantic?.lexical ?? 0;
    expect(lexical('serverless-functions')).toBeGreaterThan(lexical('archive-storage'));
  });

  it('a word pair is not made across two sentences, or from the message and a path', async () => {
    const lambda: SkillInput = {
      name: 'serverless-functions',
      description: 'Serverless function handlers: cold start latency and plan docs',
      content: '# Handlers\n- Initialise clients outside the handler.',
    };
    const skills = await registry([lambda, ...filler]);
    const lexical = async (message: string, files: string[] = []) =>
      (await skills.explain(message, { files })).candidates.find((c) => c.name === 'serverless-functions')?.signals
        .semantic?.lexical ?? 0;
    // "cold. Start" is two sentences, the same words as "cold start" but not the phrase.
    expect(await lexical('the handler is cold. Start it again')).toBeLessThan(
      await lexical('the handler cold start it again'),
    );
    expect(await lexical('the handler needs a plan', ['docs/x.md'])).toBeLessThan(
      await lexical('the handler needs a plan docs'),
    );
  });

  it('British spelling in a message meets American spelling in a skill', async () => {
    const init: SkillInput = {
      name: 'client-setup',
      description: 'Initialize SDK clients once and normalize their configuration',
      content: '# Initialization\n- Initialize clients at module load, not per request.',
    };
    const skills = await registry([init, ...filler]);
    // The skill's only words in the message are the British ones.
    const [hit] = await skills.activate('where should these be initialised, and what normalises them?');
    expect(hit?.skill.name).toBe('client-setup');
    expect(hit!.signals.semantic!.lexical).toBeGreaterThan(0);
  });

  it('a derived word keeps its own weight: "projection" is not "project"', async () => {
    const documents: SkillInput = {
      name: 'document-queries',
      description: 'Querying document stores: indexes, projections and filters',
      content: '# Projections\n- Return only the fields you need with a projection.',
    };
    const projects: SkillInput = {
      name: 'project-layout',
      description: 'Project layout: one project per service, project templates, projected timelines',
      content: '# Projects\n- Keep each project small.\n- Name the project after its service.',
    };
    const skills = await registry([documents, projects, ...filler]);
    const explained = await skills.explain('which projection keeps this slow lookup light?');
    expect(explained.candidates[0]?.name).toBe('document-queries');
    expect(explained.candidates.find((c) => c.name === 'project-layout')?.signals.semantic?.lexical ?? 0).toBe(0);
  });

  it('a message word no skill writes meets the forms of its family that skills do write', async () => {
    const library: SkillInput[] = [
      {
        name: 'fan-out',
        description: 'Dispatch concurrent subagents for independent tasks',
        content: '# Fan out\nGive each subagent one task and merge their results.',
      },
      ...Array.from({ length: 6 }, (_, i) => ({
        name: `note-${i}`,
        description: `Notes on topic ${i}`,
        content: `# Topic ${i}\nKeep the notes short.`,
      })),
    ];
    const lexical = async (parameters: ActivationParametersInput = {}) => {
      const skills = new SkillRegistry(new MemoryStore({ backend: new InMemoryBackend() }), { parameters });
      await skills.registerMany(library);
      const explained = await skills.explain('run the migrations concurrently, one subagent each');
      return explained.candidates.find((c) => c.name === 'fan-out')?.signals.semantic?.lexical ?? 0;
    };
    // "concurrently" is in no skill; `concurrent` (the same Porter stem) is in fan-out's description.
    expect(await lexical()).toBeGreaterThan(await lexical({ familyWeight: 0 }));
  });

  it("the words other skills write around a skill's name find it, though its own text lacks them", async () => {
    const celery: SkillInput = {
      name: 'celery',
      description: 'Celery conventions',
      content: '# Celery\nName tasks after what they do.',
    };
    // Three web frameworks' rules say what Celery is for; celery's own rule never does.
    const [django, flask, fastapi] = ['django', 'flask', 'fastapi'].map(
      (name): SkillInput => ({
        name,
        description: `${name} web applications`,
        content: `# ${name}\n## Views\nKeep views thin.\n## Background work\nHand slow work to Celery: retries with exponential backoff survive a restart.\n## Models\nIndex the fields you filter on.`,
      }),
    ) as [SkillInput, SkillInput, SkillInput];
    const explain = async (parameters: ActivationParametersInput = {}) => {
      const skills = new SkillRegistry(new MemoryStore({ backend: new InMemoryBackend() }), { parameters });
      await skills.registerMany([celery, django, flask, fastapi, ...filler]);
      return skills.explain('the emails should be sent again with exponential backoff after a failure');
    };
    const lexical = (e: Awaited<ReturnType<typeof explain>>, name: string) =>
      e.candidates.find((c) => c.name === name)?.signals.semantic?.lexical ?? 0;
    const withMentions = await explain();
    const without = await explain({ fieldWeights: { mentions: 0 } });
    expect(lexical(without, 'celery')).toBe(0);
    expect(lexical(withMentions, 'celery')).toBeGreaterThan(0);
    // The mentioning skill keeps what it had: the words count for celery without counting against django.
    expect(lexical(withMentions, 'django')).toBe(lexical(without, 'django'));
  });

  it("a name's context: the longest name at a place, the window either side, none from its own text, less for a name every skill writes", () => {
    const field = (name: string, body: string) => ({
      name: lexicalTerms(name),
      description: [],
      headings: [],
      body: lexicalTerms(body),
    });
    const fields = [
      field('react', 'react hooks'),
      field('react native', 'native lists'),
      field('guide', 'one two three react native scroll lists smoothly four five six'),
      field('other', 'alpha react components beta'),
      ...Array.from({ length: 16 }, (_, i) => field(`filler ${i}`, `filler words ${i}`)),
    ];
    const contexts = mentionContexts(fields, fields.length, 2);
    // "react native" in the guide is a mention of react-native only, and brings two terms either side.
    expect([...contexts[1]!.keys()].sort()).toEqual(
      ['lists', 'scroll', 'three', 'two'].map((w) => lexicalTerms(w)[0]!).sort(),
    );
    expect([...contexts[0]!.keys()]).toEqual(lexicalTerms('alpha components beta'));
    // Not from the skill's own text ("react hooks" in react's body).
    expect(contexts[0]!.has(lexicalTerms('hooks')[0]!)).toBe(false);
    expect(contexts[2]!.size).toBe(0);
    // A name that every skill's text mentions says nothing about the contexts it is in.
    const everywhere = [field('log', 'log'), ...Array.from({ length: 5 }, (_, i) => field(`s ${i}`, `x log y ${i}`))];
    expect(mentionContexts(everywhere, everywhere.length, 2)[0]!.size).toBe(0);
  });

  it('a message word reaches a skill that says it otherwise, through the words the library writes near it', async () => {
    // Three service rules write "fails" next to what to do about it; the debugging skill never says it.
    const services = ['node-service', 'python-service', 'go-service'].map(
      (name): SkillInput => ({
        name,
        description: `Running the ${name.split('-')[0]} service`,
        content: `# Operations\nWhen the worker fails, read the stack trace and find the root cause before restarting.\n# Deploys\nShip small changes.`,
      }),
    );
    const debugging: SkillInput = {
      name: 'debugging',
      description: 'Systematic debugging',
      content: '# Method\nRead the stack trace first. Find the root cause, then fix it once.',
    };
    const explain = async (parameters: ActivationParametersInput = {}) => {
      const skills = new SkillRegistry(new MemoryStore({ backend: new InMemoryBackend() }), { parameters });
      await skills.registerMany([...services, debugging, ...filler]);
      return skills.explain('the nightly import fails');
    };
    const lexical = (e: Awaited<ReturnType<typeof explain>>, name: string) =>
      e.candidates.find((c) => c.name === name)?.signals.semantic?.lexical ?? 0;
    // The floor at 0 shows the relevance itself (one bridge word of a short library is below the default floor).
    const on = await explain({ lexicalFloor: 0 });
    const off = await explain({ lexicalFloor: 0, associationWeight: 0 });
    expect(lexical(off, 'debugging')).toBe(0);
    expect(lexical(on, 'debugging')).toBeGreaterThan(0);
    // A skill that has the word itself is not counted twice for it.
    expect(lexical(on, 'node-service')).toBe(lexical(off, 'node-service'));
  });

  it('words only one skill writes near a message word bring nothing (one author is not the library)', async () => {
    const only: SkillInput = {
      name: 'ops',
      description: 'Operations',
      content: '# Crashes\nWhen the worker fails, read the stack trace and find the root cause.',
    };
    const debugging: SkillInput = {
      name: 'debugging',
      description: 'Systematic debugging',
      content: '# Method\nRead the stack trace first. Find the root cause, then fix it once.',
    };
    const skills = new SkillRegistry(new MemoryStore({ backend: new InMemoryBackend() }), {
      parameters: { lexicalFloor: 0 },
    });
    const release: SkillInput = {
      name: 'release',
      description: 'Releases',
      content: '# Rollback\nIf a release fails, roll it back.',
    };
    await skills.registerMany([only, release, debugging, ...filler]);
    const explained = await skills.explain('the nightly import fails');
    expect(explained.candidates.find((c) => c.name === 'debugging')).toBeUndefined();
  });

  it("a file's extension is the glob's evidence, not a word of the message", async () => {
    const scripts: SkillInput = {
      name: 'python-scripts',
      description: 'Writing command-line scripts',
      content:
        '# Scripts\n- Put each tool in its own .py file: cli.py, sync.py, report.py.\n- Run them as python x.py.',
      globPatterns: ['**/*'],
    };
    const skills = await registry([scripts, ...filler]);
    const explained = await skills.explain('why is this so slow?', { files: ['src/app/cache.py'] });
    expect(explained.candidates.find((c) => c.name === 'python-scripts')?.signals.semantic).toBeUndefined();
    expect(pathWords('src-tauri/src/main.rs')).toBe('src tauri src main');
  });
});

describe('lexical terms', () => {
  it('maps regular British suffixes to American ones and leaves short words alone', () => {
    const pairs = [
      ['initialised', 'initialized'],
      ['summarisation', 'summarization'],
      ['analyse', 'analyze'],
      ['behaviour', 'behavior'],
      ['favourites', 'favorites'],
      ['catalogue', 'catalog'],
      ['centre', 'center'],
    ];
    for (const [british, american] of pairs) expect(americanSpelling(british!)).toBe(american);
    for (const word of ['raise', 'noise', 'four', 'hour', 'your', 'more', 'analysis'])
      expect(americanSpelling(word)).toBe(word);
  });

  it('are inflection stems without stop words', () => {
    expect(lexicalTerms('The projections were initialised')).toEqual(['projection', 'initialize']);
    expect(lexicalTerms('projects projected')).toEqual(['project', 'project']);
    // One term for every form of a word ending in a hissing sound ("crashes" was `crashe`, "crashed" `crash`).
    expect(new Set(lexicalTerms('crashes crashed crashing crash')).size).toBe(1);
    expect(new Set(lexicalTerms('cache caches cached caching')).size).toBe(1);
  });
});

describe('the in-process activation index', () => {
  it('follows register and unregister', async () => {
    const skills = await registry([PRISMA]);
    expect(names(await skills.activate('prisma migrations'))).toEqual(['prisma']);
    await skills.register({ ...REACT_QUERY });
    expect(names(await skills.activate('react query invalidation'))).toEqual(['react-query']);
    await skills.unregister('prisma');
    expect(await skills.activate('prisma migrations')).toEqual([]);
  });

  it('sees skills another writer added to the same store (another process on the same file)', async () => {
    const backend = new InMemoryBackend();
    const reader = await registry([PRISMA], backend);
    expect(await reader.activate('react query invalidation')).toEqual([]);
    const writer = new SkillRegistry(new MemoryStore({ backend }));
    await writer.register(REACT_QUERY);
    expect(names(await reader.activate('react query invalidation'))).toEqual(['react-query']);
    await writer.register({ ...REACT_QUERY, description: 'Data fetching hooks for TanStack' });
    expect((await reader.activate('react query invalidation'))[0]?.skill.description).toBe(
      'Data fetching hooks for TanStack',
    );
  });

  it('does not search the backend per message', async () => {
    const backend = new InMemoryBackend();
    const skills = await registry([PRISMA, REACT_QUERY], backend);
    await skills.activate('warm up');
    let searches = 0;
    const search = backend.search.bind(backend);
    backend.search = (request) => {
      searches++;
      return search(request);
    };
    for (let i = 0; i < 5; i++) await skills.activate('prisma migrations', { files: ['prisma/schema.prisma'] });
    expect(searches).toBe(0);
  });
});

describe('explain', () => {
  it('reports each candidate with its signals and why it was left out', async () => {
    const many: SkillInput[] = ['one', 'two', 'three', 'four'].map((name, i) => ({
      name,
      content: `Skill ${name}`,
      triggerKeywords: ['release'],
      importance: 0.4 + i / 10,
    }));
    const skills = await registry([...many, { name: 'weak', content: 'notes', triggerKeywords: ['nothing'] }]);
    const { candidates } = await skills.explain('cut a release', { k: 2 });
    expect(candidates.map((c) => c.status)).toEqual(['active', 'active', 'beyond-k', 'beyond-k']);
    expect(candidates.map((c) => c.score)).toEqual([...candidates.map((c) => c.score)].sort((a, b) => b - a));
    expect(candidates.every((c) => c.signals.keyword?.matched[0] === 'release')).toBe(true);
    expect(candidates[2]!.reason).toContain('k = 2');
    const active = (await skills.activate('cut a release', { k: 2 })).map((a) => a.skill.name);
    expect(active).toEqual(candidates.slice(0, 2).map((c) => c.name));
    const gap = await skills.explain('cut a release', { gapRatio: 1 });
    expect(gap.candidates.slice(1).every((c) => c.status === 'gap' || c.score === gap.candidates[0]!.score)).toBe(true);
  });
});

describe('activation parameters', () => {
  it("a registry's own parameters change what it activates; a registry with others on the same store keeps its own", async () => {
    const store = new MemoryStore({ backend: new InMemoryBackend() });
    const defaults = new SkillRegistry(store);
    await defaults.registerMany([PRISMA, REACT_QUERY]);
    const message = 'add a unique constraint for composite keys to the schema';
    expect(names(await defaults.activate(message))).toEqual(['prisma']);
    // A lexical floor no message reaches: nothing is relevant enough.
    const strict = new SkillRegistry(store, { parameters: { lexicalFloor: 50 } });
    expect(await strict.activate(message)).toEqual([]);
    expect(names(await defaults.activate(message))).toEqual(['prisma']);
  });

  it('merges a part of a group over the defaults, and refuses values it cannot use, naming them', () => {
    const p = resolveActivationParameters({ bm25: { k1: 0.9 }, fieldWeights: { body: 0 } });
    expect(p.bm25).toEqual({ k1: 0.9, b: DEFAULT_ACTIVATION_PARAMETERS.bm25.b });
    expect(p.fieldWeights).toEqual({ ...DEFAULT_ACTIVATION_PARAMETERS.fieldWeights, body: 0 });
    expect(resolveActivationParameters(undefined)).toBe(DEFAULT_ACTIVATION_PARAMETERS);
    const store = new MemoryStore({ backend: new InMemoryBackend() });
    const refused = (parameters: object) => () =>
      new SkillRegistry(store, { parameters: parameters as ActivationParametersInput });
    expect(refused({ lexicalFloor: -1 })).toThrow(/parameters\.lexicalFloor must be a finite number of at least 0/);
    expect(refused({ lexicalFloor: Number.NaN })).toThrow(/lexicalFloor/);
    expect(refused({ bm25: { k: 1 } })).toThrow(/parameters\.bm25 has no field "k"; it takes k1, b/);
    expect(refused({ floor: 1 })).toThrow(/Unknown activation parameter "floor"/);
    expect(refused({ gapRatio: 2 })).toThrow(/gapRatio must be from 0 to 1/);
    expect(refused({ lexicalSemanticRange: { floor: 0.6, ceiling: 0.3 } })).toThrow(/ceiling > floor/);
    expect(refused({ scoreWeights: 1 })).toThrow(/parameters\.scoreWeights must be an object/);
  });
});

describe('small libraries (idfPriorSkills)', () => {
  const PROCESS: SkillInput[] = [
    {
      name: 'receiving-code-review',
      description: 'Use when receiving code review feedback, before implementing suggestions',
      content:
        '# Code Review Reception\nCheck each review comment against the code before changing anything. Push back on a suggestion that is technically wrong, with reasons.',
    },
    {
      name: 'requesting-code-review',
      description: 'Use when completing tasks or before merging, to have the work reviewed',
      content:
        '# Requesting Code Review\nAsk a reviewer to check the diff before merge. Give the comment thread context.',
    },
    {
      name: 'writing-plans',
      description: 'Use when you have a spec for a multi-step task, before touching code',
      content: '# Writing Plans\nWrite the plan as small tasks with exact files and commands.',
    },
    {
      name: 'brainstorming',
      description: 'Use before creative work: explore intent and design first',
      content: '# Brainstorming\nAsk one question at a time and propose two or three approaches.',
    },
    {
      name: 'systematic-debugging',
      description: 'Use when encountering any bug or test failure, before proposing fixes',
      content: '# Systematic Debugging\nFind the root cause before fixing: reproduce, read the error, trace the data.',
    },
    {
      name: 'test-driven-development',
      description: 'Use when implementing any feature or bugfix, before writing implementation code',
      content:
        '# Test-Driven Development\nWrite a failing test first, watch it fail, then write the minimal code to pass.',
    },
  ];
  const GADGETS: SkillInput[] = Array.from({ length: 40 }, (_, i) => ({
    name: `gadget-${i}`,
    description: `Conventions for gadget model ${i}: wiring and calibration`,
    content: `# Gadget ${i}\nCalibrate the sensor before wiring unit ${i}.`,
  }));
  const message = 'my teammate left review comments on the diff, which ones should I push back on?';
  const activated = async (skills: SkillInput[], parameters: ActivationParametersInput = {}) => {
    const registry = new SkillRegistry(new MemoryStore({ backend: new InMemoryBackend() }), { parameters });
    await registry.registerMany(skills);
    return names(await registry.activate(message));
  };

  it('six skills alone activate what they activate among 46: a word two of six share still counts', async () => {
    const among = await activated([...PROCESS, ...GADGETS]);
    expect(among).toEqual(['receiving-code-review', 'requesting-code-review']);
    expect(await activated(PROCESS)).toEqual(among);
    // Without the prior, `review` (in two of six) is worth half as much alone, and the second skill is cut
    // by a gap of 75% (it scores 0.69 of the first).
    expect(await activated(PROCESS, { idfPriorSkills: 0, gapRatio: 0.75 })).toEqual(['receiving-code-review']);
    expect(await activated([...PROCESS, ...GADGETS], { idfPriorSkills: 0 })).toEqual(among);
  });

  it('the prior makes no everyday message relevant to a small library', async () => {
    const registry = new SkillRegistry(new MemoryStore({ backend: new InMemoryBackend() }));
    await registry.registerMany(PROCESS);
    for (const text of ['what should I cook for dinner tonight?', 'write me a poem about the sea'])
      expect(await registry.activate(text)).toEqual([]);
  });
});

describe('names in any naming style', () => {
  it('splits kebab, snake, dotted, camel and Pascal case names into words', () => {
    expect(splitName('django-rest-framework')).toBe('django rest framework');
    expect(splitName('code_review.checklist')).toBe('code review checklist');
    expect(splitName('testDrivenDevelopment')).toBe('test Driven Development');
    expect(splitName('TDDWorkflow')).toBe('TDD Workflow');
    expect(splitName('vue3')).toBe('vue3');
  });

  it('the initials of a name of three or more parts, in any naming style; none for a shorter name', () => {
    expect(nameAcronym('django-rest-framework')).toBe('drf');
    expect(nameAcronym('testDrivenDevelopment')).toBe('tdd');
    expect(nameAcronym('finishing_a_development_branch')).toBe('fadb');
    expect(nameAcronym('react-query')).toBe('');
    expect(nameAcronym('TDDWorkflow')).toBe('');
  });

  it("a long name's initials find it, though its text never spells them; nameAcronyms 0 turns that off", async () => {
    const drf: SkillInput = {
      name: 'django-rest-framework',
      description: 'Serializers, viewsets and routers for Django APIs',
      content: '# Views\n- Prefer ModelViewSet with a router.',
    };
    const library = [drf, PRISMA, REACT_QUERY, CATCH_ALL];
    const message = 'With DRF, how do I add an owner-only permission to a viewset?';
    const [first] = await (await registry(library)).activate(message);
    expect(first?.skill.name).toBe('django-rest-framework');
    expect(first?.signals.keyword).toMatchObject({ matched: ['drf'], source: 'derived' });
    const off = new SkillRegistry(new MemoryStore({ backend: new InMemoryBackend() }), {
      parameters: { nameAcronyms: 0 },
    });
    await off.registerMany(library);
    const without = (await off.explain(message)).candidates.find((c) => c.name === 'django-rest-framework');
    expect(without?.signals.keyword).toBeUndefined();
    expect(without?.score ?? 0).toBeLessThan(first!.score);
  });

  it('a camel-case name is found by the words it is made of, as the kebab-case one is', async () => {
    const skill = (name: string): SkillInput => ({
      name,
      description: 'How we ship changes to the database',
      content: '# Rules\n- One change per file.',
    });
    for (const name of ['postgres-migrations', 'postgresMigrations', 'PostgresMigrations']) {
      const skills = await registry([skill(name), PRISMA, REACT_QUERY]);
      const [first] = await skills.activate('how should I write postgres migrations?');
      expect(first?.skill.name).toBe(name);
      expect(first?.signals.keyword?.matched).toEqual([splitName(name)]);
    }
  });
});
