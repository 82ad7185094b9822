import { describe, expect, it } from 'vitest';
import { SqliteBackend } from './sqlite-backend';

const log = {
  namespace: '_log',
  attributes: { kind: 'log' },
  payload: {},
  keys: { id: 'id', ref: 'recordId', copy: 'record' },
};

async function twoTenants() {
  const backend = new SqliteBackend({ path: ':memory:' });
  await backend.init({ dimension: 4 });
  const record = (id: string, tenant: string, value: number) => ({
    id,
    namespace: 'n',
    tenant,
    text: id,
    attributes: { "it's": value, status: 'active' },
    payload: { secret: `secret of ${tenant}` },
  });
  await backend.upsert([record('a', 't1', 1), record('b', 't2', 2)]);
  return backend;
}

describe('attribute and payload names with a quote', () => {
  it('scanAttributes reads them, and a name cannot put SQL of its own into the scan', async () => {
    const backend = await twoTenants();
    const page = await backend.scanAttributes({ filter: { tenant: 't1' }, attributes: ["it's"] });
    expect(page.records).toEqual([{ id: 'a', namespace: 'n', tenant: 't1', attributes: { "it's": 1 } }]);
    // A name written to end the SQL literal and read another tenant's payloads is only a name.
    const attack = "a' AND 0, (SELECT group_concat(json_extract(payload, '$.secret')) FROM records), '";
    const scanned = await backend.scanAttributes({ filter: { tenant: 't1' }, attributes: [attack, 'status'] });
    expect(scanned.records).toEqual([{ id: 'a', namespace: 'n', tenant: 't1', attributes: { status: 'active' } }]);
    await backend.close();
  });

  it('patchLogged compares and sets them, and a name cannot bypass the comparison', async () => {
    const backend = await twoTenants();
    const patch = (expect: Record<string, number | string | null>, payload: Record<string, number>, logId: string) =>
      backend.patchLogged({ patches: [{ id: 'a', expect, payload, logId }], attributes: { status: 'done' }, log });
    expect(await patch({ "it's": 2 }, { p: 1 }, 'L1')).toEqual([]); // a holds 1
    expect(await patch({ "zz' AND 0 OR 1 OR '": 'no such value' }, { p: 1 }, 'L2')).toEqual([]);
    expect((await backend.get(['a'], { tenant: null }))[0]!.attributes.status).toBe('active');
    expect(await patch({ "it's": 1 }, { "it's": 3 }, 'L3')).toEqual(['a']);
    const [a] = await backend.get(['a'], { tenant: null });
    expect(a!.attributes.status).toBe('done');
    expect(a!.payload).toEqual({ secret: 'secret of t1', "it's": 3 });
    await backend.close();
  });

  it('patchLogged refuses a log record upsert would refuse, and writes nothing', async () => {
    const backend = await twoTenants();
    // Cast: each is what the types allow through but upsert refuses.
    const bad = [
      { ...log, namespace: 42 as unknown as string },
      { ...log, attributes: { 'we"ird': 1 } },
      { ...log, attributes: { nested: { a: 1 } as unknown as number } },
    ] as (typeof log)[];
    for (const badLog of bad) {
      await expect(
        backend.patchLogged({
          patches: [{ id: 'a', expect: {}, payload: { p: 1 }, logId: 'L1' }],
          attributes: { status: 'done' },
          log: badLog,
        }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    expect((await backend.get(['a'], { tenant: null }))[0]!.attributes.status).toBe('active');
    expect(await backend.count({ tenant: null, namespaces: ['_log'] })).toBe(0);
    await backend.close();
  });
});
