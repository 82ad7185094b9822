import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AgentMemory, AgentMemoryError, HashingEmbedder } from '@agentmem/core';
import { FakeEmbedder } from '@agentmem/core/testing';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../backend';
import { createSqliteMemory } from '../memory';
import { emptyWal, walBytesAfterWriting } from '../test-fixtures/page-cache';
import { APPLICATION_ID, SCHEMA_VERSION } from './migrations';
import {
  CACHE_KIB,
  isAgentmemDatabase,
  nearestPackage,
  openDatabase,
  readSchemaInfo,
  WRITE_CACHE_KIB,
} from './open-database';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-sqlite-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fingerprint = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

async function expectCode(fn: () => unknown, code: string, ...mentions: (string | RegExp)[]) {
  let caught: unknown;
  try {
    await fn();
  } catch (error) {
    caught = error;
  }
  expect(AgentMemoryError.isInstance(caught), `expected AgentMemoryError ${code}, got ${String(caught)}`).toBe(true);
  const error = caught as AgentMemoryError;
  expect(error.code).toBe(code);
  for (const m of mentions) expect(error.message).toMatch(m);
  return error;
}

/** A file that must survive a refused open byte for byte, leaving no WAL files behind. */
function expectUnchanged(path: string, before: string) {
  expect(fingerprint(path)).toBe(before);
  expect(existsSync(`${path}-wal`)).toBe(false);
  expect(existsSync(`${path}-journal`)).toBe(false);
}

async function makeStore(path: string, embedder = new HashingEmbedder({ dimension: 64 })) {
  const memory = await createSqliteMemory({ path, embedder });
  await memory.remember({ content: 'The deploy key lives in the vault', type: 'project' });
  await memory.close();
}

describe('opening something that is not an agentmem database', () => {
  it('refuses a directory with NOT_A_DATABASE naming the path', async () => {
    const path = join(dir, 'a-directory');
    mkdirSync(path);
    await expectCode(() => new SqliteBackend({ path }), 'NOT_A_DATABASE', path, /directory/);
    await expectCode(() => createSqliteMemory({ path }), 'NOT_A_DATABASE', path);
    expect(isAgentmemDatabase(path)).toBe(false);
  });

  it('refuses an empty path instead of opening a temporary database', async () => {
    await expectCode(() => new SqliteBackend({ path: '' }), 'INVALID_INPUT', /memory\.db/);
    await expectCode(() => createSqliteMemory({ path: '  ' }), 'INVALID_INPUT');
  });

  it('refuses a text file and leaves it unchanged', async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(20));
    const before = fingerprint(path);
    await expectCode(() => new SqliteBackend({ path }), 'NOT_A_DATABASE', path, /agentmem database/);
    await expectCode(() => createSqliteMemory({ path }), 'NOT_A_DATABASE', path);
    expectUnchanged(path, before);
    expect(isAgentmemDatabase(path)).toBe(false);
  });

  it('refuses the SQLite database of another application and leaves it unchanged', async () => {
    const path = join(dir, 'invoices.db');
    const other = new Database(path);
    other.exec(
      'CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (12.5);',
    );
    other.close();
    const before = fingerprint(path);
    const error = await expectCode(
      () => new SqliteBackend({ path }),
      'NOT_A_DATABASE',
      path,
      /another application/,
      /invoices/,
    );
    expect(error.details.path).toBe(path);
    await expectCode(() => createSqliteMemory({ path }), 'NOT_A_DATABASE', path);
    expectUnchanged(path, before);
    expect(isAgentmemDatabase(path)).toBe(false);
  });

  it('refuses a truncated agentmem file', async () => {
    const path = join(dir, 'truncated.db');
    await makeStore(path);
    writeFileSync(path, readFileSync(path).subarray(0, 60));
    const before = fingerprint(path);
    await expectCode(() => new SqliteBackend({ path }), 'NOT_A_DATABASE', path);
    expectUnchanged(path, before);
  });

  it('refuses a file of a newer schema version with UNSUPPORTED_FORMAT and leaves it unchanged', async () => {
    const path = join(dir, 'from-the-future.db');
    await makeStore(path);
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const before = fingerprint(path);
    expect(isAgentmemDatabase(path)).toBe(true);
    await expectCode(() => new SqliteBackend({ path }), 'UNSUPPORTED_FORMAT', path, /upgrade @agentmem\/sqlite/i);
    await expectCode(() => createSqliteMemory({ path }), 'UNSUPPORTED_FORMAT', path);
    expectUnchanged(path, before);
  });

  it('read-only: refuses a missing file and every write, and writes nothing', async () => {
    const missing = join(dir, 'nowhere', 'memory.db');
    await expectCode(() => new SqliteBackend({ path: missing, readonly: true }), 'NOT_FOUND', missing);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    const path = join(dir, 'readonly.db');
    await makeStore(path);
    const before = fingerprint(path);
    const backend = new SqliteBackend({ path, readonly: true });
    try {
      expect(await backend.count({ tenant: '', where: { kind: 'memory' } })).toBe(1);
      await expectCode(() => backend.setMeta('x', 'y'), 'INVALID_INPUT', /read-only/);
      await expectCode(() => backend.delete(['anything']), 'INVALID_INPUT', /read-only/);
    } finally {
      await backend.close();
    }
    expect(fingerprint(path)).toBe(before);
  });

  it('read-only: a refused open (schema too old) leaves no -wal or -shm file behind', async () => {
    const path = join(dir, 'readonly-old.db');
    await makeStore(path);
    const raw = new Database(path);
    raw.pragma('user_version = 1');
    raw.close();
    expect(existsSync(`${path}-wal`) || existsSync(`${path}-shm`)).toBe(false);
    await expectCode(() => new SqliteBackend({ path, readonly: true }), 'UNSUPPORTED_FORMAT', /schema version 1/);
    expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`)]).toEqual([false, false]);
  });

  it('read-only: a file without a vector index still opens, searches and refuses other dimensions', async () => {
    const path = join(dir, 'readonly-novectors.db');
    const writer = new SqliteBackend({ path });
    await writer.upsert([
      { id: 'h', namespace: '_history', tenant: '', text: 'history note', attributes: {}, payload: {} },
    ]);
    await writer.close();
    const before = fingerprint(path);
    const backend = new SqliteBackend({ path, readonly: true });
    try {
      await backend.init({ dimension: 8 });
      expect(
        await backend.search({ mode: 'dense', vector: new Float32Array(8), filter: { tenant: '' }, k: 3 }),
      ).toEqual([]);
      await expectCode(
        () => backend.search({ mode: 'dense', vector: new Float32Array(4), filter: { tenant: '' }, k: 3 }),
        'DIMENSION_MISMATCH',
      );
      const kw = await backend.search({ mode: 'keyword', text: 'history', filter: { tenant: '' }, k: 3 });
      expect(kw.map((h) => h.record.id)).toEqual(['h']);
    } finally {
      await backend.close();
    }
    expect(fingerprint(path)).toBe(before);
  });
});

describe('creating a store', () => {
  it('creates the parent directory and a file recognisable as agentmem while it is still open', async () => {
    const path = join(dir, 'deep', 'er', 'memory.db');
    const backend = new SqliteBackend({ path });
    try {
      expect(isAgentmemDatabase(path)).toBe(true);
      expect(SqliteBackend.isAgentmemDatabase(path)).toBe(true);
    } finally {
      await backend.close();
    }
  });

  it('makes new files with 8 KiB pages, and keeps the page size an existing file was made with', async () => {
    // 8 KiB pages hold five 384-dimension vector rows where 4 KiB held two (issue 30's disk goal).
    const fresh = new SqliteBackend({ path: join(dir, 'pages-new.db') });
    try {
      expect(fresh.database.pragma('page_size', { simple: true })).toBe(8192);
    } finally {
      await fresh.close();
    }
    for (const size of [4096, 16384]) {
      const path = join(dir, `pages-${size}.db`);
      const raw = new Database(path);
      raw.pragma(`page_size = ${size}`);
      raw.pragma('journal_mode = WAL');
      raw.exec('CREATE TABLE t (x)'); // not yet agentmem's, but no longer empty: its pages are set
      raw.exec('DROP TABLE t');
      raw.close();
      const adopted = new SqliteBackend({ path });
      try {
        expect(adopted.database.pragma('page_size', { simple: true })).toBe(size);
        await adopted.init({ dimension: 4 });
        await adopted.upsert([{ id: 'a', namespace: 'n', tenant: '', text: 'kept', attributes: {}, payload: {} }]);
        expect(await adopted.count({ tenant: '' })).toBe(1);
      } finally {
        await adopted.close();
      }
      const again = new SqliteBackend({ path });
      try {
        expect(again.database.pragma('page_size', { simple: true })).toBe(size);
      } finally {
        await again.close();
      }
    }
  });

  it('adopts an empty file', async () => {
    const path = join(dir, 'empty.db');
    writeFileSync(path, '');
    await makeStore(path);
    expect(isAgentmemDatabase(path)).toBe(true);
  });
});

describe('embedder and dimension checks', () => {
  it('refuses to open a file built with another embedder, through AgentMemory, changing nothing', async () => {
    const path = join(dir, 'embedder.db');
    await makeStore(path, new HashingEmbedder({ dimension: 64 }));
    const before = fingerprint(path);
    for (const embedder of [
      new FakeEmbedder({ id: 'other-model', dimension: 64 }),
      new HashingEmbedder({ dimension: 128 }),
    ]) {
      const backend = new SqliteBackend({ path });
      const memory = new AgentMemory({ backend, embedder });
      try {
        await expectCode(
          () => memory.remember({ content: 'should not be written', type: 'user' }),
          'EMBEDDER_MISMATCH',
          /re-embed/,
        );
        await expectCode(() => memory.recall('deploy key'), 'EMBEDDER_MISMATCH');
      } finally {
        await memory.close();
      }
      await expectCode(() => createSqliteMemory({ path, embedder }), 'EMBEDDER_MISMATCH', embedder.id);
    }
    expect(fingerprint(path)).toBe(before);
    const same = await createSqliteMemory({ path, embedder: new HashingEmbedder({ dimension: 64 }) });
    try {
      expect((await same.recall('deploy key'))[0]?.memory.content).toBe('The deploy key lives in the vault');
    } finally {
      await same.close();
    }
  });

  it('refuses vectors of the wrong dimension without writing any record of the batch', async () => {
    const path = join(dir, 'dimension.db');
    const backend = new SqliteBackend({ path });
    try {
      await backend.init({ dimension: 4 });
      const ok = {
        id: 'ok',
        namespace: 'user',
        tenant: '',
        text: 'fine',
        attributes: {},
        payload: {},
        vector: new Float32Array([1, 0, 0, 0]),
      };
      await expectCode(
        () => backend.upsert([ok, { ...ok, id: 'bad', vector: new Float32Array(5) }]),
        'DIMENSION_MISMATCH',
        /5 dimensions/,
      );
      await expectCode(
        () => backend.search({ mode: 'dense', vector: new Float32Array(3), filter: { tenant: '' }, k: 1 }),
        'DIMENSION_MISMATCH',
      );
      expect(await backend.count({ tenant: null })).toBe(0);
      await expectCode(() => backend.init({ dimension: 8 }), 'DIMENSION_MISMATCH', path);
    } finally {
      await backend.close();
    }
    const before = fingerprint(path);
    const reopened = new SqliteBackend({ path });
    try {
      await expectCode(() => reopened.init({ dimension: 8 }), 'DIMENSION_MISMATCH', /4-dimensional/);
      await reopened.init({ dimension: 4 });
      const bad = {
        id: 'bad',
        namespace: 'user',
        tenant: '',
        text: 'x',
        attributes: {},
        payload: {},
        vector: new Float32Array(8),
      };
      await expectCode(() => reopened.upsert([bad]), 'DIMENSION_MISMATCH');
    } finally {
      await reopened.close();
    }
    expect(fingerprint(path)).toBe(before);
  });
});

describe('page cache', () => {
  it('gives every connection, writer or read-only, a 16 MiB page cache (a larger one is RSS a bulk write leaves behind)', async () => {
    const path = join(dir, 'cache.db');
    const cache = (b: SqliteBackend) => b.database.pragma('cache_size', { simple: true });
    expect(CACHE_KIB).toBe(16_384);
    const writer = new SqliteBackend({ path });
    await writer.upsert([]);
    expect(cache(writer)).toBe(-16_384);
    const reader = new SqliteBackend({ path, readonly: true });
    expect(cache(reader)).toBe(-16_384);
    await reader.close();
    await writer.close();
  });
});

describe('page cache', () => {
  it('a new file: its connection caches CACHE_KIB of its 8 KiB pages, not twice that (pages counted at 4 KiB)', () => {
    const db = openDatabase(join(dir, 'cache-new.db'));
    try {
      expect(db.pragma('page_size', { simple: true })).toBe(8192);
      // 2,600 pages (21 MB): more than 16 MiB holds, less than 32 MiB. Set before page_size, the cache
      // held 4,096 pages and spilled none of them.
      emptyWal(db);
      db.exec('BEGIN IMMEDIATE');
      expect(walBytesAfterWriting(db, 2600)).toBeGreaterThan(2 * 2 ** 20);
      db.exec('ROLLBACK');
      expect(WRITE_CACHE_KIB).toBe(2 * CACHE_KIB);
    } finally {
      db.close();
    }
  });
});

describe('mmapBytes', () => {
  it('maps 16 MiB of the file by default, what mmapBytes asks for otherwise, and refuses a non-size', async () => {
    const path = join(dir, 'mmap.db');
    const mapped = (b: SqliteBackend) => b.database.pragma('mmap_size', { simple: true });
    const byDefault = new SqliteBackend({ path });
    expect(mapped(byDefault)).toBe(16 * 2 ** 20);
    await byDefault.close();
    const larger = new SqliteBackend({ path, mmapBytes: 256 * 2 ** 20 });
    expect(mapped(larger)).toBe(256 * 2 ** 20);
    await larger.close();
    const memory = await createSqliteMemory({ path, mmapBytes: 0, embedder: new HashingEmbedder({ dimension: 16 }) });
    expect((memory.backend as SqliteBackend).database.pragma('mmap_size', { simple: true })).toBe(0);
    await memory.close();
    for (const bad of [-1, 1.5, '64MB'])
      await expectCode(() => new SqliteBackend({ path, mmapBytes: bad as number }), 'INVALID_INPUT', 'mmapBytes');
  });
});

describe('a file another process is creating', () => {
  it('reads the schema as one snapshot: a first migration committed mid-read is seen whole or not at all', () => {
    const path = join(dir, 'racing', 'memory.db');
    mkdirSync(join(dir, 'racing'), { recursive: true });
    const reader = new Database(path);
    const creator = new Database(path);
    let committed = false;
    // The reader's first call returns, then the other process commits its first migration.
    const racing = new Proxy(reader, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const result = value.apply(target, args);
          if (!committed) {
            committed = true;
            creator.exec('BEGIN IMMEDIATE; CREATE TABLE records (id TEXT PRIMARY KEY);');
            creator.pragma(`application_id = ${APPLICATION_ID | 0}`);
            creator.exec('COMMIT');
          }
          return result;
        };
      },
    });
    try {
      const info = readSchemaInfo(racing);
      expect(committed).toBe(true);
      // Before the commit (empty, no id) or after it (ours, with its table): never a mix.
      const before = info.applicationId === 0 && info.tables.length === 0;
      const after = info.applicationId === APPLICATION_ID >>> 0 && info.tables.includes('records');
      expect(before || after, JSON.stringify(info)).toBe(true);
    } finally {
      reader.close();
      creator.close();
    }
  });
});

describe('a file another process is writing', () => {
  it('opens at once while the writer holds the write lock (a file at this schema takes no write to open)', async () => {
    const path = join(dir, 'busy', 'memory.db');
    await makeStore(path);
    const writer = new Database(path);
    writer.exec("BEGIN IMMEDIATE; INSERT INTO meta (key, value) VALUES ('busy', '1');");
    try {
      // Before: the open's migration check waited for the lock and failed with TIMEOUT after busyTimeoutMs.
      const backend = new SqliteBackend({ path, busyTimeoutMs: 50 });
      expect(readSchemaInfo(backend.database).version).toBe(SCHEMA_VERSION);
      await backend.close();
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });
});

describe("where the open finds better-sqlite3's addon", () => {
  it('finds the package folder Node resolves from this file, without the resolver', () => {
    const resolved = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
    expect(realpathSync(nearestPackage(import.meta.dirname, 'better-sqlite3')!)).toBe(realpathSync(resolved));
  });

  it('takes the nearest node_modules, skips one nested in another, and says when there is none', () => {
    const root = join(dir, 'lookup');
    const pkg = (at: string) => {
      mkdirSync(at, { recursive: true });
      writeFileSync(join(at, 'package.json'), '{}');
      return at;
    };
    const outer = pkg(join(root, 'node_modules', 'dep'));
    const inner = pkg(join(root, 'app', 'node_modules', 'dep'));
    // Node never looks in node_modules/node_modules: a package there is not found.
    pkg(join(root, 'node_modules', 'lib', 'node_modules', 'node_modules', 'dep'));
    mkdirSync(join(root, 'app', 'src'), { recursive: true });
    expect(nearestPackage(join(root, 'app', 'src'), 'dep')).toBe(inner);
    expect(nearestPackage(join(root, 'other'), 'dep')).toBe(outer);
    expect(nearestPackage(join(root, 'node_modules', 'lib', 'node_modules'), 'dep')).toBe(outer);
    expect(nearestPackage(join(root, 'app'), 'missing')).toBeUndefined();
  });
});
