import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../server/create-server';
import type { ServerContext } from '../server/server-context';

export const MCP_HTTP_PATH = '/mcp';
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpServerHandle {
  /** e.g. http://127.0.0.1:3917/mcp */
  url: string;
  /** Stops accepting connections and closes every session. */
  close(): Promise<void>;
}

/**
 * Streamable HTTP on a loopback address, one MCP session per client
 * (`Mcp-Session-Id`), all sessions over the one store. Requests whose Host
 * is not a loopback name are refused (DNS rebinding).
 */
export async function serveHttp(
  ctx: ServerContext,
  options: { host: string; port: number },
): Promise<HttpServerHandle> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== MCP_HTTP_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}.`);
    const hostname = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK_NAMES.has(hostname)) return reply(res, 403, `Host ${req.headers.host ?? '(none)'} is not allowed.`);
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) {
      const body = req.method === 'POST' ? await readJson(req, res) : undefined;
      if (body === INVALID) return;
      return existing.handleRequest(req, res, body);
    }
    if (req.method !== 'POST')
      return reply(res, 400, 'No valid Mcp-Session-Id: start a session with an initialize request.');
    const body = await readJson(req, res);
    if (body === INVALID) return;
    if (!isInitializeRequest(body))
      return reply(res, 400, 'No valid Mcp-Session-Id: start a session with an initialize request.');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    const server = createMcpServer(ctx);
    server.server.onerror = (error) => ctx.log(`protocol error: ${error.message}`);
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close().catch(() => {});
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      ctx.log(`HTTP request failed: ${(error as Error).stack ?? error}`);
      if (!res.headersSent) reply(res, 500, 'Internal server error.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}${MCP_HTTP_PATH}`,
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      sessions.clear();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections(); // open SSE streams would keep close() waiting
      await closed;
    },
  };
}

const INVALID = Symbol('invalid');

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      reply(res, 413, `Request body over ${MAX_BODY_BYTES} bytes.`);
      return INVALID;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    reply(res, 400, 'The body is not JSON.', -32700);
    return INVALID;
  }
}

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
