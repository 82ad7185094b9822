import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryTools } from '@agentmem/ai-sdk';
import { createAgentMemory, InMemoryBackend } from '@agentmem/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { createMcpServer } from '../../packages/mcp/src/server/create-server';
import { ServerContext } from '../../packages/mcp/src/server/server-context';

/** The tool names in the first column of the doc's table whose header starts with `| tool |`. */
function documentedTools(doc: string): string[] {
  const text = readFileSync(join(__dirname, '../../docs', doc), 'utf8');
  const table = text.slice(text.indexOf('| tool |')).split('\n\n')[0]!;
  return [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]!).sort();
}

describe('the tool tables of the docs list every tool', () => {
  it('docs/ai-sdk.md lists every tool memoryTools() returns', async () => {
    const memory = await createAgentMemory({ backend: new InMemoryBackend() });
    expect(documentedTools('ai-sdk.md')).toEqual(Object.keys(memoryTools(memory)).sort());
    await memory.close();
  });

  it('docs/mcp.md lists every tool the MCP server serves', async () => {
    const memory = await createAgentMemory({ backend: new InMemoryBackend(), branch: 'main' });
    const server = createMcpServer(new ServerContext(memory, { db: ':memory:', cwd: '.', skills: [] }, () => {}));
    const client = new Client({ name: 'docs-test', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    await client.connect(b);
    try {
      const { tools } = await client.listTools();
      expect(documentedTools('mcp.md')).toEqual(tools.map((t) => t.name).sort());
    } finally {
      await client.close();
      await server.close();
      await memory.close();
    }
  });
});
