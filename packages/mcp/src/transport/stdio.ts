import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../server/create-server';
import type { ServerContext } from '../server/server-context';

/**
 * Serves over stdin/stdout until the client closes stdin (or the transport
 * closes). Only protocol messages go to stdout; logs go to stderr.
 */
export async function serveStdio(ctx: ServerContext, io: { stdin?: Readable; stdout?: Writable } = {}): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const server = createMcpServer(ctx);
  server.server.onerror = (error) => ctx.log(`protocol error: ${error.message}`);
  const transport = new StdioServerTransport(stdin, io.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}
