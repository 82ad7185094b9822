import { AgentMemoryError } from '@agentmem/core';
import { describe, expect, it } from 'vitest';
import { qdrantLocation } from './context';
import { embedderFor, isDefaultEmbedder, parseEmbedder } from './embedder';
import { main } from './index';

describe('--embedder', () => {
  it('names an embedder by the id a store records, so an EMBEDDER_MISMATCH id can be passed back', async () => {
    expect(await embedderFor(undefined)).toBeUndefined();
    expect((await embedderFor('hashing'))?.id).toBe('agentmem/hashing-v1:384');
    expect((await embedderFor('hashing:256'))?.id).toBe('agentmem/hashing-v1:256');
    expect((await embedderFor('agentmem/hashing-v1:512'))?.id).toBe('agentmem/hashing-v1:512');
    expect((await embedderFor('cohere:embed-english-light-v3.0'))?.id).toBe('cohere:embed-english-light-v3.0:384');
    expect((await embedderFor('cohere:embed-v4.0:1024'))?.id).toBe('cohere:embed-v4.0:1024');
  });

  it('refuses anything else, listing the forms it takes', async () => {
    for (const spec of ['openai', 'hashing:', 'cohere:', 'hashing:12']) {
      const error = await embedderFor(spec).catch((e: unknown) => e);
      expect(AgentMemoryError.hasCode(error, 'INVALID_INPUT'), spec).toBe(true);
    }
    expect(((await embedderFor('openai').catch((e: unknown) => e)) as Error).message).toContain('hashing:<dimension>');
  });
});

describe('--embedder option parser', () => {
  it('passes what embedderFor builds and refuses what it refuses, before anything is opened', async () => {
    for (const spec of ['hashing', 'hashing:256', 'agentmem/hashing-v1:512', 'cohere:embed-v4.0:1024']) {
      expect(parseEmbedder(spec), spec).toBe(spec);
      expect(await embedderFor(spec), spec).toBeDefined();
    }
    for (const spec of ['openai', 'hashing:', 'cohere:', 'hashing:12', 'hashing:0', 'hashing:70000']) {
      expect(() => parseEmbedder(spec), spec).toThrow(/hashing/);
      await expect(embedderFor(spec), spec).rejects.toThrow();
    }
  });
});

describe('--db as a Qdrant collection', () => {
  it('takes the collection REST URL, and nothing else that looks like a path', () => {
    expect(qdrantLocation('http://localhost:6333/collections/agentmem')).toEqual({
      url: 'http://localhost:6333',
      collection: 'agentmem',
    });
    expect(qdrantLocation('https://q.example/prefix/collections/team%20a/')).toEqual({
      url: 'https://q.example/prefix',
      collection: 'team a',
    });
    for (const other of ['./collections/x', 'http://localhost:6333', 'postgres://h/collections/x', 'memory.db'])
      expect(qdrantLocation(other), other).toBeUndefined();
  });
});

describe('agentmem mcp with --embedder', () => {
  it('is refused with what to do, rather than serving the store with another embedder', async () => {
    let stderr = '';
    const io = {
      stdout: () => {},
      stderr: (t: string) => {
        stderr += t;
      },
      isTTY: false,
    };
    expect(await main(['--embedder', 'hashing:256', 'mcp'], io)).toBe(2);
    expect(stderr).toMatch(/^error \[USAGE\]: `agentmem mcp` serves stores of the default embedder only; .*\n$/);
  });

  it('accepts the default named explicitly (as AGENTMEM_EMBEDDER=hashing would)', async () => {
    for (const spec of [undefined, 'hashing', 'hashing:384', 'agentmem/hashing-v1:384'])
      expect(await isDefaultEmbedder(spec), spec).toBe(true);
    for (const spec of ['hashing:256', 'agentmem/hashing-v1:1024'])
      expect(await isDefaultEmbedder(spec), spec).toBe(false);
  });
});
