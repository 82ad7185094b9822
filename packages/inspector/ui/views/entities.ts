import { useRef, useState } from 'preact/hooks';
import type { EntityDetail, EntityPage } from '../../src/data/entities';
import { useGet } from '../api';
import { ErrorBox, Loading } from '../components';
import { html } from '../html';

const entityHref = (key: string) => `#/entities?key=${encodeURIComponent(key)}`;

/** One entity: the memories that mention it and the entities that share them. */
function EntityPanel({ entityKey }: { entityKey: string }) {
  const detail = useGet<EntityDetail>('/api/entity', { key: entityKey });
  const d = detail.data;
  return html`<section aria-label="Entity" data-testid="entity-detail">
    <${Loading} when=${detail.loading} />
    <${ErrorBox} error=${detail.error} />
    ${
      d
        ? html`<h2>${d.name} <span class="muted small">${d.kind} · <code>${d.key}</code></span></h2>
            <h3>Memories (${d.memories.length})</h3>
            <table data-testid="entity-memories">
              <thead><tr><th>Memory</th><th>When</th><th>Namespace</th></tr></thead>
              <tbody>${d.memories.map(
                (m) => html`<tr>
                  <td><a href=${`#/memory/${encodeURIComponent(m.id)}`}>${m.content}</a>${
                    m.mentioned ? html`<div class="muted small">says “${m.mentioned}”</div>` : null
                  }</td>
                  <td class="small">${m.occurredAt.slice(0, 10)}</td>
                  <td class="small">${m.namespace}</td>
                </tr>`,
              )}</tbody>
            </table>
            <h3>Neighbours</h3>
            ${
              d.neighbours.length === 0
                ? html`<p class="muted">No other entity shares its memories.</p>`
                : html`<table data-testid="entity-neighbours">
                    <thead><tr><th>Entity</th><th>Kind</th><th class="num">Shared memories</th><th class="num">All its memories</th></tr></thead>
                    <tbody>${d.neighbours.map(
                      (n) => html`<tr>
                        <td><a href=${entityHref(n.key)}>${n.name}</a></td>
                        <td class="small">${n.kind}</td>
                        <td class="num">${n.shared}</td>
                        <td class="num">${n.count}</td>
                      </tr>`,
                    )}</tbody>
                  </table>`
            }`
        : null
    }
  </section>`;
}

/** The entities the memories mention (people, places, titles, names, dates), a page at a time. */
export function EntitiesView({ search }: { search: URLSearchParams }) {
  const selected = search.get('key') ?? undefined;
  const [prefix, setPrefix] = useState(search.get('prefix') ?? '');
  // Cursors of the pages before the current one (for Previous); the current page's own cursor last.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useGet<EntityPage>('/api/entities', { prefix, cursor, limit: 100 });
  // Uncontrolled field (defaultValue): a page arriving must not wipe what the user is typing.
  const form = useRef<HTMLFormElement>(null);
  const apply = (e: Event) => {
    e.preventDefault();
    setPrefix(String(new FormData(form.current!).get('prefix') ?? '').trim());
    setCursors([undefined]);
  };
  const p = page.data;
  return html`<div>
    <h1 tabindex="-1">Entities</h1>
    <p class="muted small">People, places, titles, names and dates the memories mention; memories that share one are linked through it.</p>
    ${selected ? html`<${EntityPanel} entityKey=${selected} key=${selected} />` : null}
    <form ref=${form} class="filters" onSubmit=${apply} role="search" aria-label="Filter entities">
      <label class="grow">Key starts with <input name="prefix" defaultValue=${prefix} placeholder="carolin, date:2023-05, …" /></label>
      <button type="submit">Filter</button>
    </form>
    <${Loading} when=${page.loading} />
    <${ErrorBox} error=${page.error} />
    ${
      p
        ? p.entities.length === 0
          ? html`<p class="muted">No entities${prefix ? ' with that prefix' : ''}.</p>`
          : html`<table data-testid="entities-table">
              <thead><tr><th>Entity</th><th>Kind</th><th>Key</th><th class="num">Memories</th></tr></thead>
              <tbody>${p.entities.map(
                (e) => html`<tr aria-current=${e.key === selected ? 'true' : undefined}>
                  <td><a href=${entityHref(e.key)}>${e.name}</a></td>
                  <td class="small">${e.kind}</td>
                  <td class="small"><code>${e.key}</code></td>
                  <td class="num">${e.count}</td>
                </tr>`,
              )}</tbody>
            </table>
            <nav class="pager" aria-label="Pages">
              <button type="button" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous</button>
              <button type="button" disabled=${!p.cursor} onClick=${() => setCursors([...cursors, p.cursor])}>Next</button>
            </nav>`
        : null
    }
  </div>`;
}
