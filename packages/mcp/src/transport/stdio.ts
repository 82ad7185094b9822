import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../server/create-server';
import type { ServerContext } from '../server/server-context';

/**
 * Serves over stdin/stdout until the client closes stdin, the transport
 * closes or `signal` aborts. Only protocol messages go to stdout; logs go to stderr.
 */
export async function serveStdio(
  ctx: ServerContext,
  io: { stdin?: Readable; stdout?: Writable; signal?: AbortSignal } = {},
): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const server = createMcpServer(ctx);
  server.server.onerror = (error) => ctx.log(`protocol error: ${error.message}`);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    io.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(new StdioServerTransport(stdin, io.stdout ?? process.stdout));
  await closed;
  await server.close().catch(() => {});
}
