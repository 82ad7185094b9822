import { delimiter, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentMemoryError, assertBranchName, invalidInput, isPostgresUrl } from '@agentmem/core';

/** Same default as the `agentmem` CLI, so both see one store. */
export const DEFAULT_DB_PATH = './.agentmem/memory.db';
export const DEFAULT_QDRANT_COLLECTION = 'agentmem';
export const DEFAULT_HTTP_PORT = 3917;
/** Streamable HTTP has no authentication here, so it only listens on the loopback interface. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;

/** Everything the server needs, from flags and environment (flags win). */
export interface McpServerConfig {
  /** SQLite file (absolute), or a `postgres://` connection string. Ignored when `qdrant` is set. */
  db: string;
  qdrant?: { url: string; collection: string; apiKey?: string };
  tenant?: string;
  /** A fixed branch; without it the branch follows git in `cwd` (and the client's first root). */
  branch?: string;
  /** The client's working directory: branch detection and relative paths start here. */
  cwd: string;
  agentId?: string;
  /** The session whose summary `session://current` shows; default the most recently updated one. */
  session?: string;
  /** Skill directories loaded (registered) at start. */
  skills: string[];
  /** Serve Streamable HTTP on loopback instead of stdio. */
  http?: { host: string; port: number };
}

export const USAGE = `Usage: agentmem-mcp [options]

MCP server for agentmem memory and skills (stdio by default).

Options (environment variable in brackets; flags win):
  --db <path|url>           SQLite store file, or postgres://user:pw@host/db [AGENTMEM_DB]
                            (default ${DEFAULT_DB_PATH}, relative to --cwd)
  --qdrant-url <url>        use a Qdrant server instead of SQLite [AGENTMEM_QDRANT_URL]
  --qdrant-collection <n>   Qdrant collection [AGENTMEM_QDRANT_COLLECTION] (default ${DEFAULT_QDRANT_COLLECTION})
                            API key only from the environment [AGENTMEM_QDRANT_API_KEY]
  --tenant <id>             tenant scope, e.g. a user id [AGENTMEM_TENANT]
  --branch <name>           fixed branch for project/reference memories [AGENTMEM_BRANCH]
                            (default: git branch of the client's working directory)
  --cwd <dir>               the client's working directory [AGENTMEM_CWD] (default: current directory)
  --agent <id>              agent id recorded as provenance on writes [AGENTMEM_AGENT_ID]
  --session <id>            session whose summary is the session://current resource [AGENTMEM_SESSION]
  --skills <dir>            load skills from this directory at start; repeatable [AGENTMEM_SKILLS, a path list]
  --http                    serve Streamable HTTP on loopback instead of stdio
  --port <n>                HTTP port (default ${DEFAULT_HTTP_PORT}); implies --http
  --host <host>             HTTP host, loopback only: ${LOOPBACK_HOSTS.join(', ')} (default 127.0.0.1)
  -h, --help                this help
  -V, --version             the version`;

export type ParsedArgs = { kind: 'help' } | { kind: 'version' } | { kind: 'serve'; config: McpServerConfig };

/** Parses `agentmem-mcp` flags (without node and script) over the environment. */
export function parseServerArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ParsedArgs {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw invalidInput(`${(error as Error).message}. Run agentmem-mcp --help for the options.`);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  return {
    kind: 'serve',
    config: resolveConfig(
      {
        db: values.db,
        qdrantUrl: values['qdrant-url'],
        qdrantCollection: values['qdrant-collection'],
        tenant: values.tenant,
        branch: values.branch,
        cwd: values.cwd,
        agent: values.agent,
        session: values.session,
        skills: values.skills,
        http: values.http,
        port: values.port,
        host: values.host,
      },
      env,
    ),
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      db: { type: 'string' },
      'qdrant-url': { type: 'string' },
      'qdrant-collection': { type: 'string' },
      tenant: { type: 'string' },
      branch: { type: 'string' },
      cwd: { type: 'string' },
      agent: { type: 'string' },
      session: { type: 'string' },
      skills: { type: 'string', multiple: true },
      http: { type: 'boolean' },
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
    },
  });
}

/** Flag values as given (the CLI's `agentmem mcp` fills these from its own options). */
export interface ServerFlags {
  db?: string;
  qdrantUrl?: string;
  qdrantCollection?: string;
  tenant?: string;
  branch?: string;
  cwd?: string;
  agent?: string;
  session?: string;
  skills?: string[];
  http?: boolean;
  port?: string | number;
  host?: string;
}

/** Flags over environment over defaults, validated: a bad value is an INVALID_INPUT naming the fix. */
export function resolveConfig(flags: ServerFlags, env: NodeJS.ProcessEnv = process.env): McpServerConfig {
  const pick = (flag: string | undefined, name: string) => nonEmpty(flag ?? env[name]);
  const cwd = resolve(pick(flags.cwd, 'AGENTMEM_CWD') ?? process.cwd());
  const url = pick(flags.qdrantUrl, 'AGENTMEM_QDRANT_URL');
  const branch = pick(flags.branch, 'AGENTMEM_BRANCH');
  if (branch !== undefined) assertBranchName(branch);
  const skills = flags.skills?.length
    ? flags.skills
    : (env.AGENTMEM_SKILLS ?? '').split(delimiter).filter((dir) => dir.trim() !== '');
  const port = flags.port ?? (flags.http || flags.host ? DEFAULT_HTTP_PORT : undefined);
  const config: McpServerConfig = {
    db: storeLocation(cwd, pick(flags.db, 'AGENTMEM_DB') ?? DEFAULT_DB_PATH),
    cwd,
    skills: skills.map((dir) => resolve(cwd, dir)),
  };
  if (url !== undefined) {
    if (!/^https?:\/\//.test(url))
      throw invalidInput(
        `--qdrant-url must be an http(s) URL such as http://localhost:6333, got ${JSON.stringify(url)}.`,
      );
    const apiKey = nonEmpty(env.AGENTMEM_QDRANT_API_KEY);
    config.qdrant = {
      url,
      collection: pick(flags.qdrantCollection, 'AGENTMEM_QDRANT_COLLECTION') ?? DEFAULT_QDRANT_COLLECTION,
      ...(apiKey ? { apiKey } : {}),
    };
  }
  const tenant = pick(flags.tenant, 'AGENTMEM_TENANT');
  const agentId = pick(flags.agent, 'AGENTMEM_AGENT_ID');
  const session = pick(flags.session, 'AGENTMEM_SESSION');
  if (tenant !== undefined) config.tenant = tenant;
  if (branch !== undefined) config.branch = branch;
  if (agentId !== undefined) config.agentId = agentId;
  if (session !== undefined) config.session = session;
  if (port !== undefined || flags.http) config.http = { host: loopbackHost(flags.host), port: parsePort(port) };
  return config;
}

/** A file path relative to `cwd`, or a postgres:// connection string as given. */
function storeLocation(cwd: string, db: string): string {
  return isPostgresUrl(db) ? db : resolve(cwd, db);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parsePort(value: string | number | undefined): number {
  const port = Number(value ?? DEFAULT_HTTP_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw invalidInput(
      `--port must be a whole number from 0 to 65535 (0: any free port), got ${JSON.stringify(value)}.`,
    );
  }
  return port;
}

function loopbackHost(host: string | undefined): string {
  const value = host ?? '127.0.0.1';
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(value)) {
    throw new AgentMemoryError(
      'INVALID_INPUT',
      `--host ${value} is not a loopback address. The HTTP transport has no authentication, so it only listens on ${LOOPBACK_HOSTS.join(', ')}; put a proxy with authentication in front to reach it from elsewhere.`,
    );
  }
  return value;
}
