import type { McpServerConfig } from '@agentmem/mcp';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../index';

const served: McpServerConfig[] = [];
vi.mock('@agentmem/mcp', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@agentmem/mcp')>()),
  serve: async (config: McpServerConfig) => {
    served.push(config);
  },
}));

async function run(argv: string[]) {
  let stderr = '';
  const code = await main(argv, {
    stdout: () => {},
    stderr: (text) => {
      stderr += text;
    },
    isTTY: false,
  });
  return { code, stderr };
}

describe('agentmem mcp --port', () => {
  it('takes 0 (any free port), as docs/mcp.md says', async () => {
    const { code, stderr } = await run(['mcp', '--port', '0']);
    expect(code, stderr).toBe(0);
    expect(served.at(-1)?.http).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it('refuses a value that is not a port as a usage error naming the range', async () => {
    for (const bad of ['70000', '-1', 'http']) {
      const { code, stderr } = await run(['mcp', '--port', bad]);
      expect(code, bad).toBe(2);
      expect(stderr).toContain('Expected a port number from 0 to 65535');
    }
  });
});
