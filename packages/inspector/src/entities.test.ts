import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDetail, EntityPage } from './data/entities';
import { type InspectorHandle, startInspector } from './index';
import { http, login } from './test-fixtures/http';
import { type SeededStore, seedStore } from './test-fixtures/seed';

let store: SeededStore;
let inspector: InspectorHandle;
let session: Awaited<ReturnType<typeof login>>;

beforeAll(async () => {
  store = await seedStore();
  await store.memory.rememberConversation(
    [
      { speaker: 'Maria', text: 'I dropped off soup at the Hope shelter with Jean yesterday.' },
      { speaker: 'John', text: 'Jean told me about it. She loves that place.' },
    ],
    { at: '2023-05-08T10:00:00Z', sessionId: 'inspector-entities' },
  );
  inspector = await startInspector({ memory: store.memory, label: store.path, settings: store.settings });
  session = await login(inspector.url);
});
afterAll(async () => {
  await inspector?.close();
  await store?.cleanup();
});

const api = async <T>(path: string) => {
  const response = await http(`${session.origin}${path}`, { headers: session.headers });
  return { status: response.status, body: JSON.parse(response.body) as T };
};

describe('inspector entities', () => {
  it('lists the entities with their kinds and counts, page by page, through the read-only backend', async () => {
    const first = await api<EntityPage>('/api/entities?limit=3');
    expect(first.status).toBe(200);
    expect(first.body.entities).toHaveLength(3);
    expect(first.body.cursor).toBeDefined();
    const all: EntityPage['entities'] = [];
    let cursor: string | undefined;
    do {
      const page = await api<EntityPage>(
        `/api/entities?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      all.push(...page.body.entities);
      cursor = page.body.cursor;
    } while (cursor);
    expect(all.map((e) => e.key)).toEqual([...all.map((e) => e.key)].sort());
    expect(all).toContainEqual({ key: 'jean', name: 'Jean', kind: 'name', count: 2 });
    expect(all).toContainEqual({ key: 'maria', name: 'Maria', kind: 'person', count: 1 });
    expect(all).toContainEqual({ key: 'date:2023-05-07', name: '7 May 2023', kind: 'date', count: 1 });
    const dates = await api<EntityPage>('/api/entities?prefix=date:');
    expect(dates.body.entities.map((e) => e.key)).toEqual(['date:2023-05-07']);
  });

  it("shows an entity's memories and its neighbours", async () => {
    const jean = await api<EntityDetail>('/api/entity?key=jean');
    expect(jean.status).toBe(200);
    expect(jean.body.memories.map((m) => m.content)).toEqual(
      expect.arrayContaining([
        'Maria: I dropped off soup at the Hope shelter with Jean yesterday.',
        'John: Jean told me about it. She loves that place.',
      ]),
    );
    expect(jean.body.neighbours.map((n) => [n.name, n.shared])).toEqual(
      expect.arrayContaining([
        ['John', 1],
        ['Maria', 1],
        ['Hope', 1],
      ]),
    );
    const day = await api<EntityDetail>(`/api/entity?key=${encodeURIComponent('date:2023-05-07')}`);
    expect(day.body.memories[0]?.mentioned).toBe('yesterday');
    const missing = await api<{ error: { code: string } }>('/api/entity?key=');
    expect(missing.status).toBe(400);
  });
});
