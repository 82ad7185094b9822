/** True for a PostgreSQL connection string (`postgres://…` or `postgresql://…`) where a store path is expected. */
export function isPostgresUrl(value: string | undefined): value is string {
  return typeof value === 'string' && /^postgres(ql)?:\/\//i.test(value.trim());
}

/** The message when `--db postgres://…` is used without the Postgres backend installed. */
export const POSTGRES_PACKAGE_MISSING =
  'A postgres:// store needs the Postgres backend: run `npm i @agentmem/postgres` (it brings pg and pgvector), or pass a file path to use the embedded SQLite store.';

/** A store location fit for logs: the password of a connection string replaced by `***`. */
export function redactPassword(location: string): string {
  if (!isPostgresUrl(location)) return location;
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparseable connection string)';
  }
}
