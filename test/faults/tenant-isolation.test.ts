import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteMemory } from '@agentmem/sqlite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { faultRuns, faultTimeout } from './runs';

const dir = mkdtempSync(join(tmpdir(), 'agentmem-tenants-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TENANTS = ['acme', 'globex', 'initech'];
const BRANCHES = ['main', 'feature/x'];
const write = fc.record({
  tenant: fc.constantFrom(...TENANTS),
  branch: fc.constantFrom(...BRANCHES),
  type: fc.constantFrom('user' as const, 'project' as const),
  word: fc.constantFrom('deploy', 'billing', 'oncall', 'schema', 'cache'),
  n: fc.nat(20),
});

describe('tenant isolation (SQLite, 3 tenants × 2 branches)', () => {
  it(
    'property: list, recall and get never show another tenant; recall shows no project memory of another branch',
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 25 }), async (writes) => {
          const path = join(dir, `t${run++}.db`);
          const stores = new Map<string, Awaited<ReturnType<typeof createSqliteMemory>>>();
          const open = async (tenant: string, branch: string) => {
            const key = `${tenant}|${branch}`;
            if (!stores.has(key)) stores.set(key, await createSqliteMemory({ path, tenant, branch }));
            return stores.get(key)!;
          };
          try {
            const ids = new Map<string, { tenant: string; branch: string; type: string }>();
            for (const w of writes) {
              const m = await (await open(w.tenant, w.branch)).remember({
                content: `${w.tenant} ${w.word} fact ${w.n}`,
                type: w.type,
              });
              ids.set(m.id, w);
            }
            for (const tenant of TENANTS) {
              for (const branch of BRANCHES) {
                const store = await open(tenant, branch);
                const visible = (m: { tenant: string; type: string; branch?: string }) =>
                  m.tenant === tenant && (m.type !== 'project' || m.branch === branch);
                // memories() lists the whole tenant (every branch): the tenant must match.
                for await (const m of store.memories()) expect(m.tenant).toBe(tenant);
                for (const word of ['deploy', 'billing', 'oncall']) {
                  for (const r of await store.recall(`${word} fact`, { k: 10 })) expect(visible(r.memory)).toBe(true);
                }
                for (const [id, w] of ids) {
                  const got = await store.get(id);
                  if (w.tenant !== tenant) expect(got).toBeUndefined();
                }
              }
            }
          } finally {
            for (const s of stores.values()) await s.close();
          }
        }),
        { numRuns: faultRuns(10) },
      );
    },
    faultTimeout(),
  );
});
