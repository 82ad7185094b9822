import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Started {
  client: Client;
  /** What the server wrote to stderr so far (its log). */
  stderr: () => string;
  /** Transport errors: a line on stdout that is not protocol would land here. */
  errors: Error[];
  close: () => Promise<void>;
}

/**
 * Starts a real server process (`node --import tsx <script> ...args`) and
 * connects the SDK's own Client to it over stdio.
 */
export async function startServer(
  args: string[],
  options: {
    script?: string;
    env?: Record<string, string>;
    client?: ClientOptions;
    setup?: (client: Client) => void;
  } = {},
): Promise<Started> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', options.script ?? 'packages/mcp/src/bin.ts', ...args],
    cwd: root,
    env: { ...getDefaultEnvironment(), ...options.env },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk) => {
    log += String(chunk);
  });
  const errors: Error[] = [];
  const client = new Client({ name: 'agentmem-test', version: '1.0.0' }, options.client);
  options.setup?.(client);
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, stderr: () => log, errors, close: () => client.close() };
}

/** Calls a tool and returns its structured content, failing with the tool's message on an error result. */
// biome-ignore lint/suspicious/noExplicitAny: tests read fields of the structured content and check them with expect
export async function call<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** Calls a tool that must fail; returns the error text and code. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} succeeded, expected an error: ${textOf(result)}`);
  return { message: textOf(result), code: result._meta?.['agentmem/code'] as string | undefined };
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

export function tempDir(): { dir: string; path: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'agentmem-mcp-test-'));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Reads a resource and returns its first content as text (with its mime type). */
export async function readText(client: Client, uri: string): Promise<{ text: string; mimeType?: string }> {
  const [content] = (await client.readResource({ uri })).contents;
  if (!content || !('text' in content)) throw new Error(`${uri} has no text content`);
  return { text: content.text, ...(content.mimeType ? { mimeType: content.mimeType } : {}) };
}

/** The endpoint an `--http` server process prints on stderr once it listens (rejects if it exits first). */
export function httpUrlOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = '';
    child.stderr!.on('data', (chunk) => {
      log += String(chunk);
      const found = /Streamable HTTP at (\S+)/.exec(log);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${log}`)));
  });
}
