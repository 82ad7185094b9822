import type pg from 'pg';

// Where a backend points: a short label for messages, and the store-location parameters
// (`?schema=`, `?table=`) that ride on a connection string but are never sent to the server.

/** `host:port/database` of the server, for messages (never the password). */
export function describeTarget(connectionString: string | undefined, pool: pg.Pool): string {
  if (connectionString) {
    try {
      const url = new URL(connectionString);
      return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
    } catch {
      return 'the configured server';
    }
  }
  const o = pool.options as { host?: string; port?: number; database?: string };
  return `${o.host ?? 'localhost'}:${o.port ?? 5432}/${o.database ?? ''}`;
}

/**
 * `?schema=…&table=…` on a connection string choose the store's tables (so a
 * CLI flag or an environment variable can name them); they are not sent to the server.
 */
export function locationParams(connectionString: string | undefined): {
  connectionString?: string;
  schema?: string;
  table?: string;
} {
  if (!connectionString) return {};
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString };
  }
  const schema = url.searchParams.get('schema') ?? undefined;
  const table = url.searchParams.get('table') ?? undefined;
  if (schema === undefined && table === undefined) return { connectionString };
  url.searchParams.delete('schema');
  url.searchParams.delete('table');
  return { connectionString: url.toString(), schema, table };
}
