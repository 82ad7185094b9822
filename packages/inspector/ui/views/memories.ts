import { useRef, useState } from 'preact/hooks';
import type { MemoryPage } from '../../src/data/memories';
import { useGet } from '../api';
import { ErrorBox, Loading } from '../components';
import { fmt } from '../format';
import { html } from '../html';

const FIELDS = ['tenant', 'branch', 'namespace', 'type', 'status', 'tag', 'q'] as const;
type Filters = Partial<Record<(typeof FIELDS)[number], string>>;

function fromHash(search: URLSearchParams): Filters {
  const filters: Filters = {};
  for (const f of FIELDS) {
    const v = search.get(f);
    if (v !== null) filters[f] = v;
  }
  return filters;
}

/** The tag and text filters in words: `tag infra and text "postgres"`. */
function scanFilters(filters: Filters): string {
  return [filters.tag ? `tag ${filters.tag}` : '', filters.q ? `text "${filters.q}"` : '']
    .filter(Boolean)
    .join(' and ');
}

function summary(p: MemoryPage, filters: Filters, pageNumber: number): string {
  const scan = scanFilters(filters)
    ? `; tag and text are checked while scanning: ${fmt.n(p.scanned)} examined for this page`
    : '';
  return `${fmt.n(p.total)} ${p.total === 1 ? 'memory matches' : 'memories match'} the tenant, branch, namespace, type and status filters${scan}. Page ${pageNumber}: ${fmt.n(p.rows.length)} shown, in id order.`;
}

/** Why a page is empty, and what to do: an empty table says neither. */
function emptyMessage(p: MemoryPage, filters: Filters, pageNumber: number): string {
  const scanned = scanFilters(filters);
  if (p.total === 0) return 'No memory matches these filters: clear some of them (tenant * is every tenant).';
  if (p.cursor)
    return `None of the ${fmt.n(p.scanned)} memories examined for this page matches ${scanned}: continue scanning for the rest.`;
  if (pageNumber > 1) return 'No more memories: the previous page was the last.';
  return `None of the ${fmt.n(p.total)} memories that match the other filters matches ${scanned}.`;
}

/** Every memory, a page at a time from the server (cursor paging; nothing loads the whole store). */
export function MemoriesView({ search }: { search: URLSearchParams }) {
  const initial = fromHash(search);
  const [filters, setFilters] = useState<Filters>(initial);
  // Cursors of the pages before the current one (for Previous); the current page's own cursor last.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useGet<MemoryPage>('/api/memories', { ...filters, tenant: filters.tenant ?? '*', cursor, limit: 50 });
  // The fields are uncontrolled (defaultValue, defaultSelected): the re-render when a page arrives would
  // otherwise reset them to the last applied filters, wiping what the user typed while it loaded.
  const form = useRef<HTMLFormElement>(null);

  const apply = (e: Event) => {
    e.preventDefault();
    const data = new FormData(form.current!);
    const next: Filters = {};
    for (const f of FIELDS) {
      const v = String(data.get(f) ?? '');
      if (v !== '') next[f] = v;
    }
    if (next.tenant === '*') delete next.tenant;
    history.replaceState(null, '', `#/memories?${new URLSearchParams(next as Record<string, string>).toString()}`);
    setFilters(next);
    setCursors([undefined]);
  };
  const p = page.data;
  return html`<div>
    <h1 tabindex="-1">Memories</h1>
    <form ref=${form} class="filters" onSubmit=${apply} role="search" aria-label="Filter memories">
      <label>Tenant <input name="tenant" defaultValue=${filters.tenant ?? '*'} placeholder="* = every tenant" /></label>
      <label>Branch <input name="branch" defaultValue=${filters.branch ?? ''} /></label>
      <label>Namespace <input name="namespace" defaultValue=${filters.namespace ?? ''} /></label>
      <label>Type
        <select name="type">
          <option value="" defaultSelected=${!filters.type}>any</option>
          ${['user', 'feedback', 'project', 'reference'].map((t) => html`<option value=${t} defaultSelected=${t === filters.type}>${t}</option>`)}
        </select>
      </label>
      <label>Status
        <select name="status">
          ${['all', 'active', 'superseded', 'pruned'].map((t) => html`<option value=${t} defaultSelected=${t === (filters.status ?? 'all')}>${t}</option>`)}
        </select>
      </label>
      <label>Tag <input name="tag" defaultValue=${filters.tag ?? ''} /></label>
      <label class="grow">Text <input name="q" type="search" defaultValue=${filters.q ?? ''} placeholder="words in the content" /></label>
      <button type="submit">Filter</button>
    </form>
    <${ErrorBox} error=${page.error} />
    <${Loading} when=${page.loading} />
    ${
      p
        ? html`<p class="muted small" data-testid="memories-summary">${summary(p, filters, cursors.length)}</p>
            ${
              p.rows.length === 0
                ? html`<p data-testid="memories-empty">${emptyMessage(p, filters, cursors.length)}</p>`
                : html`<table class="data" data-testid="memories-table">
              <thead><tr><th>Content</th><th>Type</th><th>Namespace</th><th>Tenant</th><th>Status</th><th class="num">Importance</th><th class="num" title="importance after decay, now">Effective importance</th><th>Updated</th></tr></thead>
              <tbody>
                ${p.rows.map(
                  (r) => html`<tr>
                    <td class="primary"><a href=${`#/memory/${encodeURIComponent(r.id)}`}>${r.content.length > 140 ? `${r.content.slice(0, 140)}…` : r.content}</a>
                      ${r.tags.length ? html`<div class="tags">${r.tags.map((t) => html`<span class="tag">${t}</span>`)}</div>` : null}</td>
                    <td data-label="Type">${r.type}</td>
                    <td data-label="Namespace">${r.namespace}</td>
                    <td data-label="Tenant">${fmt.tenant(r.tenant)}</td>
                    <td data-label="Status"><span class=${`status status-${r.status}`}>${r.status}</span></td>
                    <td class="num" data-label="Importance">${r.importance.toFixed(2)}</td>
                    <td class="num" data-label="Effective importance">${r.effectiveImportance.toFixed(2)}</td>
                    <td data-label="Updated">${fmt.date(r.updatedAt)}</td>
                  </tr>`,
                )}
              </tbody>
            </table>`
            }
            <nav class="pager" aria-label="Pages">
              <button type="button" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous</button>
              <button type="button" disabled=${!p.cursor} onClick=${() => setCursors([...cursors, p.cursor])} data-testid="next-page">
                ${p.rows.length === 0 && p.cursor ? 'Continue scanning' : 'Next'}
              </button>
            </nav>`
        : null
    }
  </div>`;
}
