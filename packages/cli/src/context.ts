import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import {
  type AgentMemory,
  AgentMemoryError,
  importOptional,
  isPostgresUrl,
  POSTGRES_PACKAGE_MISSING,
  toDisplayText,
} from '@agentmem/core';
import { createSqliteMemory, sqliteSnapshotFormat } from '@agentmem/sqlite';
import type { Command } from 'commander';
import { embedderFor, missingCohereKey, parseEmbedder } from './embedder';
import { CliError } from './errors';
import type { CliIo } from './io';
import { type Column, type Row, renderTable, toJson } from './output';

export const DEFAULT_DB_PATH = './.agentmem/memory.db';
// A variable, so that bundlers leave the optional package out.
const POSTGRES_PACKAGE = '@agentmem/postgres';
type PostgresModule = typeof import('@agentmem/postgres');
const QDRANT_PACKAGE = '@agentmem/qdrant';
type QdrantModule = typeof import('@agentmem/qdrant');

/** A Qdrant collection's REST URL (`http(s)://host:6333/collections/<name>`) as a `--db`: its server and name. */
export function qdrantLocation(value: string): { url: string; collection: string } | undefined {
  const match = /^(https?:\/\/.+?)\/collections\/([^/?#]+)\/?$/i.exec(value.trim());
  return match ? { url: match[1]!, collection: decodeURIComponent(match[2]!) } : undefined;
}

/** The global options every command sees (`agentmem --help`). */
export interface GlobalOptions {
  db: string;
  json: boolean;
  yes: boolean;
  tenant?: string;
  branch?: string;
  agent?: string;
  embedder?: string;
}

export interface OpenMemoryOptions {
  /** Another file than `--db` (the demo's temporary store, a snapshot). */
  path?: string;
  /** Overrides `--branch`. */
  branch?: string;
  /** Overrides `--agent`. */
  agentId?: string;
  /** Fail with NOT_FOUND instead of creating the file (read-only commands). */
  mustExist?: boolean;
}

/**
 * What a command gets: the global options, the store (opened lazily, closed by
 * `main`), and output helpers that respect `--json` and the terminal.
 */
export class CliContext {
  /** Set by a command that ends without an error but not successfully (e.g. declined confirmation). */
  exitCode = 0;
  /** The command whose action runs (`agentmem recall`): the help its usage errors name. */
  command: string | undefined;
  private readonly opened = new Map<string, Promise<AgentMemory>>();
  /** Of the stores opened, the SQLite files this command created: what was there before, by the key of `opened`. */
  private readonly created = new Map<string, NewStore>();
  /** Files opened read-only because this user cannot write them. */
  private readonly unwritable = new Set<string>();
  private progressShown = false;
  /** The progress line last shown: its label and 1% step. */
  private lastProgress = { label: '', bucket: -1 };

  constructor(
    readonly io: CliIo,
    /** The parsed program (undefined before parsing), source of the global options. */
    private readonly program: () => Command | undefined,
  ) {}

  get options(): GlobalOptions {
    const given = this.program()?.opts<Partial<GlobalOptions>>() ?? {};
    return { ...given, db: given.db ?? DEFAULT_DB_PATH, json: given.json ?? false, yes: given.yes ?? false };
  }

  /** True when `--db` was on the command line (not the default). */
  get dbWasGiven(): boolean {
    return this.program()?.getOptionValueSource('db') === 'cli';
  }

  get json(): boolean {
    return this.options.json;
  }

  get yes(): boolean {
    return this.options.yes;
  }

  /** Absolute path of `--db`, or its postgres:// connection string or Qdrant collection URL. */
  get dbPath(): string {
    const db = this.options.db;
    return isPostgresUrl(db) || qdrantLocation(db) ? db : resolve(db);
  }

  /**
   * Opens (once per path) the SQLite store, or the Postgres one for a
   * postgres:// `--db`, or a Qdrant collection for its URL, with the global
   * tenant, branch (default: from git), agent and embedder.
   */
  openMemory(options: OpenMemoryOptions = {}): Promise<AgentMemory> {
    const location = options.path ?? this.options.db;
    const postgres = isPostgresUrl(location);
    const qdrant = qdrantLocation(location);
    const path = postgres || qdrant || location === ':memory:' ? location : resolve(location);
    const branch = options.branch ?? this.options.branch;
    const agentId = options.agentId ?? this.options.agent;
    const key = `${path}\u0000${branch ?? ''}\u0000${agentId ?? ''}`;
    let memory = this.opened.get(key);
    if (!memory) {
      if (!postgres && !qdrant && path !== ':memory:') {
        refuseSpecialFile(
          path,
          options.path === undefined ? '--db' : 'The store',
          'Give --db an agentmem database file, or a path that does not exist yet to create one.',
        );
      }
      if (options.mustExist && !postgres && !qdrant && path !== ':memory:') {
        // A missing or empty file would become a store on open: a command that only reads must not create one.
        const none = noStoreAt(path);
        if (none) {
          throw new AgentMemoryError(
            'NOT_FOUND',
            `No memory database at ${path}${none === 'empty' ? ' (an empty file)' : ''}. Create one with \`agentmem remember\`, \`agentmem import\` or \`agentmem skills load DIR\`, or pass --db with an existing file.`,
            { details: { path } },
          );
        }
      }
      const noKey = missingCohereKey(this.options.embedder);
      if (noKey) throw noKey;
      // Without --branch, project and reference memories follow the git branch of the working directory.
      const scope = branch ? { branch } : { detectBranch: true };
      memory = embedderFor(this.options.embedder).then(async (embedder) => {
        const common = { tenant: this.options.tenant, agentId, ...scope, ...(embedder ? { embedder } : {}) };
        if (postgres) {
          const { createPostgresMemory } = await importOptional(
            () => import(POSTGRES_PACKAGE) as Promise<PostgresModule>,
            POSTGRES_PACKAGE_MISSING,
          );
          return createPostgresMemory({ connectionString: path, ...common, snapshotFormat: sqliteSnapshotFormat });
        }
        if (qdrant) {
          const { createQdrantMemory } = await importOptional(
            () => import(QDRANT_PACKAGE) as Promise<QdrantModule>,
            `--db ${path} is a Qdrant collection: run \`npm i @agentmem/qdrant\` to use it.`,
          );
          const apiKey = process.env.AGENTMEM_QDRANT_API_KEY;
          return createQdrantMemory({
            ...qdrant,
            ...(apiKey ? { apiKey } : {}),
            ...common,
            snapshotFormat: sqliteSnapshotFormat,
          });
        }
        const readonly = !canWrite(path);
        if (readonly) this.unwritable.add(path);
        const none = noStoreAt(path);
        const made: NewStore | undefined = none
          ? { path, wasEmpty: none === 'empty', dirs: missingDirs(path) }
          : undefined;
        const opened = await createSqliteMemory({ path, ...common, readonly });
        if (made) this.created.set(key, made);
        return opened;
      });
      this.opened.set(key, memory);
      // A failed open must not be handed out again (or closed).
      memory.catch(() => this.opened.delete(key));
    }
    return memory;
  }

  /**
   * The library's error in CLI terms: its messages speak to API users (option
   * objects, method names); a user of the command line needs the flag or the
   * command. Errors without a translation are returned unchanged.
   */
  explain(error: unknown): unknown {
    if (!AgentMemoryError.isInstance(error)) return error;
    for (const translate of [
      this.readOnly,
      branchIntoItself,
      this.embedderMismatch,
      this.notADatabase,
      unknownMerge,
      unknownMemoryToRestore,
      notASnapshot,
      cohereUrl,
    ]) {
      const translated = translate.call(this, error);
      if (translated) return translated;
    }
    return error;
  }

  /** A write refused on a file the CLI opened read-only (the backend speaks of the API's `readonly` option). */
  private readOnly(error: AgentMemoryError): AgentMemoryError | undefined {
    if (error.code !== 'INVALID_INPUT') return undefined;
    const path = [...this.unwritable].find((p) => error.message.startsWith(`${p} was opened read-only`));
    if (!path) return undefined;
    return new AgentMemoryError(
      'INVALID_INPUT',
      `${path} is not writable by this user (the file or its directory), so it was opened read-only: reading commands work, this one writes and was refused before changing anything. Run it as a user who can write the file and its directory.`,
      { cause: error, details: { path } },
    );
  }

  /**
   * A store or snapshot built with another embedder: name the `--embedder`
   * that opens it (the id the store records, which `--embedder` accepts as is)
   * and `merge --reembed`, not the API's `{ reembed: true }`.
   */
  private embedderMismatch(error: AgentMemoryError): AgentMemoryError | undefined {
    if (error.code !== 'EMBEDDER_MISMATCH') return undefined;
    const details = error.details as Record<string, { id?: string; dimension?: number } | undefined> | undefined;
    const { stored, requested, source, local } = details ?? {};
    if (stored?.id && requested?.id) {
      // Opening the store with the wrong embedder.
      return new AgentMemoryError(
        'EMBEDDER_MISMATCH',
        `${this.dbPath} was built with embedder "${stored.id}" (${stored.dimension} dimensions), not "${requested.id}" (${requested.dimension}). ` +
          `${embedderFlag(stored.id)} To move it to another embedder, snapshot it and merge the snapshot with --reembed into a new store opened with the new --embedder (docs/operations.md): \`agentmem --db ${this.options.db} --embedder ${stored.id} snapshot <file>\`, then \`agentmem --db <new file> --embedder <new id> merge <file> --reembed\`.`,
        { cause: error, details: error.details },
      );
    }
    if (source?.id && local?.id) {
      // Merging (or diffing) a snapshot built with another embedder.
      const label = /^(.*) was built with embedder /.exec(error.message)?.[1] ?? 'The snapshot';
      return new AgentMemoryError(
        'EMBEDDER_MISMATCH',
        `${label} was built with embedder "${source.id}" (${source.dimension} dimensions), this store with "${local.id}" (${local.dimension}). ` +
          `Vectors of two embedders are never mixed: pass --reembed (\`agentmem merge ${label} --reembed\`) to re-embed its contents with this store's embedder.`,
        { cause: error, details: error.details },
      );
    }
    return undefined;
  }

  /** `--db` is a directory or a file that is no agentmem store (the backend speaks of `@agentmem/sqlite`). */
  private notADatabase(error: AgentMemoryError): AgentMemoryError | undefined {
    if (error.code !== 'NOT_A_DATABASE') return undefined;
    const path = error.details?.path;
    const at = error.message.indexOf(' Point @agentmem/sqlite at ');
    if (typeof path !== 'string' || path !== this.dbPath || at < 0) return undefined;
    return new AgentMemoryError(
      'NOT_A_DATABASE',
      `--db ${error.message.slice(0, at)} Give --db an agentmem database file, or a path that does not exist yet to create one (e.g. --db ./.agentmem/memory.db).`,
      { cause: error, details: error.details },
    );
  }
  /**
   * Closes every store this command opened. After a command that `failed`, a store file it created and
   * left without a record is removed again (with the directories made for it): a command that fails
   * before writing, as a usage error before the store opens, leaves no new empty store behind.
   */
  async close(failed = false): Promise<void> {
    const stores = [...this.opened.entries()];
    const created = new Map(this.created);
    this.opened.clear();
    this.created.clear();
    for (const [key, store] of stores) {
      const memory = await store.catch(() => undefined);
      const made = created.get(key);
      const unused =
        failed &&
        made !== undefined &&
        memory !== undefined &&
        (await memory.backend.scan({ filter: { tenant: null }, limit: 1, withVectors: false }).then(
          (page) => page.records.length === 0,
          () => false,
        ));
      await memory?.close();
      if (unused) removeNewStore(made);
    }
  }

  // ---------------------------------------------------------------- output

  /** One line to stdout, for people: stored text cannot drive the terminal (escape sequences, controls, bidi removed). */
  print(text = ''): void {
    this.io.stdout(`${toDisplayText(text)}\n`);
  }

  /** One line to stderr (notes that must not mix with data on stdout). */
  note(text: string): void {
    this.io.stderr(`${text}\n`);
  }

  printJson(value: unknown): void {
    // JSON escapes what matters itself; cleaning it would change the data (U+2028 is valid inside a string).
    this.io.stdout(`${toJson(value)}\n`);
  }

  /** Prints an aligned table, or `empty` when there are no rows. */
  table(rows: readonly Row[], columns?: readonly (string | Column)[], empty = '(none)'): void {
    this.print(rows.length > 0 ? renderTable(rows, columns, { width: this.io.columns }) : empty);
  }

  /** With `--json` prints `value`; otherwise runs `human` to print it for people. */
  emit(value: unknown, human: () => void): void {
    if (this.json) this.printJson(value);
    else human();
  }

  /**
   * `label done/total` on one refreshed stderr line; only on a terminal and
   * never with `--json`. Refreshed at most every 1% (about 100 writes for any size).
   */
  progress(label: string, done: number, total: number): void {
    if (!this.io.isTTY || this.json) return;
    // Shown when a phase starts and each time `done` enters another 1% step: whatever the batch size
    // (`done % step === 0` missed most batches of 256 over 20,000: four updates).
    const step = Math.max(1, Math.ceil(total / 100));
    const bucket = Math.floor(done / step);
    const last = this.lastProgress;
    if (done < total && last.label === label && last.bucket === bucket) return;
    this.lastProgress = { label, bucket };
    this.io.stderr(`\r${label} ${done}/${total}`);
    this.progressShown = done < total;
    if (done >= total) this.io.stderr('\n');
  }

  /** Ends a progress line that stopped early (an error midway). */
  endProgress(): void {
    if (this.progressShown) this.io.stderr('\n');
    this.progressShown = false;
  }

  /**
   * Asks before a destructive step. `--yes` answers yes; without a terminal
   * (or with `--json`) there is nobody to ask, so it refuses instead of guessing.
   */
  async confirm(question: string): Promise<boolean> {
    if (this.yes) return true;
    if (!this.io.isTTY || !this.io.stdin || this.json) {
      throw new CliError(
        'CONFIRMATION_REQUIRED',
        `"${question}" needs confirmation and there is no terminal to ask${this.json ? ' (--json)' : ''}. Nothing was changed; pass --yes to go ahead.`,
      );
    }
    this.io.stderr(`${question} [y/N] `);
    return /^y(es)?$/i.test((await readLine(this.io.stdin)).trim());
  }
}

/** `branch diff|merge` with the current branch as source and no `--into` (the library says `{ into }`). */
function branchIntoItself(error: AgentMemoryError): AgentMemoryError | undefined {
  const match = /^Cannot merge branch (.+) into itself; pass \{ into: <other branch> \}\.$/.exec(error.message);
  if (error.code !== 'INVALID_INPUT' || !match) return undefined;
  return new AgentMemoryError(
    'INVALID_INPUT',
    `Cannot merge branch ${match[1]} into itself (without --into, the target is the current branch). Pass --into <branch> to name another target branch.`,
    { cause: error },
  );
}

/** Cohere out of reach at another base URL: the CLI sets it with AGENTMEM_COHERE_URL, not the API's `baseUrl`. */
function cohereUrl(error: AgentMemoryError): AgentMemoryError | undefined {
  if (error.code !== 'BACKEND_UNAVAILABLE' || !/^Cannot reach Cohere .*the baseUrl is right/.test(error.message))
    return undefined;
  return new AgentMemoryError('BACKEND_UNAVAILABLE', error.message.replace('the baseUrl', 'AGENTMEM_COHERE_URL'), {
    cause: error,
    details: error.details,
  });
}

/** `undo-merge` of an id that is no merge (the library names `listMerges()`). */
function unknownMerge(error: AgentMemoryError): AgentMemoryError | undefined {
  const mergeId = error.details?.mergeId;
  if (error.code !== 'NOT_FOUND' || typeof mergeId !== 'string') return undefined;
  return new AgentMemoryError(
    'NOT_FOUND',
    `No merge with id ${mergeId} in this store. List merges and their ids with \`agentmem merges\`.`,
    { cause: error, details: error.details },
  );
}

/** `restore` of an unknown id (the library names `history(id)`). */
function unknownMemoryToRestore(error: AgentMemoryError): AgentMemoryError | undefined {
  const id = error.details?.id;
  if (error.code !== 'NOT_FOUND' || typeof id !== 'string' || !error.message.includes('history(id)')) return undefined;
  return new AgentMemoryError(
    'NOT_FOUND',
    `No memory with id ${id} in this scope: it was compacted or forgotten (\`agentmem history ${id}\` still shows its last state), or the id or --tenant is wrong.`,
    { cause: error, details: error.details },
  );
}

/**
 * `merge` or `diff` of a file that is no snapshot but something the CLI can
 * use another way: an agentmem store (snapshot it first) or JSONL (import it).
 * The library can only say "ask for a new snapshot".
 */
function notASnapshot(error: AgentMemoryError): AgentMemoryError | undefined {
  const path = error.details?.path;
  if (typeof path !== 'string' || (error.code !== 'CORRUPT_SNAPSHOT' && error.code !== 'NOT_A_SNAPSHOT'))
    return undefined;
  // The snapshot format opens agentmem files only, so one without a manifest is an agentmem store.
  if (error.code === 'CORRUPT_SNAPSHOT' && error.message.includes('has no snapshot manifest')) {
    return new AgentMemoryError(
      'CORRUPT_SNAPSHOT',
      `${path} is an agentmem store, not a snapshot; nothing was changed. Make a snapshot of it with \`agentmem --db ${path} snapshot <out>\` and merge that (\`agentmem merge <out>\`).`,
      { cause: error, details: error.details },
    );
  }
  if (error.code === 'NOT_A_SNAPSHOT' && firstCharacter(path) === '{') {
    return new AgentMemoryError(
      'NOT_A_SNAPSHOT',
      `${path} looks like JSONL (memories as \`agentmem export\` writes them), not a snapshot; nothing was changed. Import it with \`agentmem import ${path}\`.`,
      { cause: error, details: error.details },
    );
  }
  return undefined;
}

/** The first character of a file that is not white space (or a byte order mark), from its first 4 KiB. */
function firstCharacter(path: string): string | undefined {
  let fd: number | undefined;
  try {
    // Non-blocking, and regular files only: a FIFO without a writer would block the open forever.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    const head = Buffer.alloc(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    return head
      .toString('utf8', 0, n)
      .replace(/^\uFEFF/, '')
      .trimStart()[0];
  } catch {
    return undefined; // a directory, or unreadable
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** How to open a store built with embedder `id`: `--embedder <id>` when the CLI can name it. */
function embedderFlag(id: string): string {
  try {
    parseEmbedder(id);
    return `Open it with --embedder ${id} (or AGENTMEM_EMBEDDER=${id}).`;
  } catch {
    return 'The command line cannot open that embedder (--embedder takes hashing, hashing:<dimension> or cohere:<model>[:<dimension>]); open it through the API with the same embedder.';
  }
}

/** What a FIFO, device or socket at `path` is (following links), in words; undefined for anything else or nothing. */
export function specialFileKind(path: string): string | undefined {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    return undefined;
  }
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return undefined;
}

/**
 * Refuses a path the CLI would open that is a FIFO, a device or a socket:
 * opening a FIFO without a writer blocks forever, a terminal waits for input,
 * /dev/zero never ends, and a write would replace the special file. `what`
 * names the argument (`--db`, `the snapshot`), `fix` says what to give instead.
 */
export function refuseSpecialFile(path: string, what: string, fix: string): void {
  const kind = specialFileKind(path);
  if (kind === undefined) return;
  throw new AgentMemoryError(
    'INVALID_INPUT',
    `${what} ${path} is ${kind}, not a regular file; nothing was read or written. ${fix}`,
    {
      details: { path },
    },
  );
}

/** True for an existing directory (false when nothing is there, or a file stands in the way on its path). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Why opening `path` would create a store: nothing there, or an empty file (a directory is left to the open, which says why it is no store). */
export function noStoreAt(path: string): 'missing' | 'empty' | undefined {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    return 'missing'; // as existsSync: not there, a file in the way, or not searchable
  }
  return stats.isFile() && stats.size === 0 ? 'empty' : undefined;
}

/** A SQLite store file a command created: was an empty file there, and the directories made for it. */
export interface NewStore {
  path: string;
  wasEmpty: boolean;
  /** Missing directories above the file, deepest first. */
  dirs: string[];
}

/** The directories above `path` that do not exist yet, deepest first (opening the store makes them). */
function missingDirs(path: string): string[] {
  const dirs: string[] = [];
  for (let dir = dirname(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) dirs.push(dir);
  return dirs;
}

/**
 * Puts back what was there before a store was created: no file (or the empty one), no new directories.
 * Called after this process closed the store; a `-wal` file still there means another connection has
 * the file open (SQLite's last connection to close removes it) and may be writing: the file then stays.
 */
export function removeNewStore(store: NewStore): boolean {
  if (existsSync(`${store.path}-wal`)) return false;
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${store.path}${suffix}`, { force: true });
  if (store.wasEmpty) writeFileSync(store.path, '');
  else rmSync(store.path, { force: true });
  for (const dir of store.dirs) {
    try {
      rmdirSync(dir); // only when empty: anything else put there stays
    } catch {
      break;
    }
  }
  return true;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * False for an existing file this user cannot write (or whose directory cannot
 * take the `-wal`/`-shm` files a writer needs): the CLI opens it read-only, so
 * reading commands work and writing ones are refused before anything changes.
 */
function canWrite(path: string): boolean {
  if (path === ':memory:' || !existsSync(path)) return true;
  if (!writable(path)) return false;
  return writable(dirname(path)) || (writable(`${path}-wal`) && writable(`${path}-shm`));
}

function readLine(input: Readable): Promise<string> {
  return new Promise((resolveLine) => {
    const rl = createInterface({ input, terminal: false });
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolveLine(line);
    });
    rl.once('close', () => {
      if (!answered) resolveLine('');
    });
  });
}
