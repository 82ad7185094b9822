import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import type { MemoryDetail } from '../../src/data/memories';
import { useGet } from '../api';
import { Chart, ErrorBox, Loading } from '../components';
import { fmt } from '../format';
import { html } from '../html';

function DecayChart({ detail }: { detail: MemoryDetail }) {
  const d = detail.decay;
  const data = useMemo(
    (): uPlot.AlignedData => [
      d.points.map(([t]) => t / 1000),
      d.points.map(([, v]) => v),
      d.points.map(() => d.threshold),
    ],
    [detail],
  );
  return html`<section aria-labelledby="decay">
    <h2 id="decay">Decay</h2>
    <p data-testid="decay-summary">
      Importance ${d.importance.toFixed(2)}, half-life ${fmt.hours(d.halfLifeHours)}, ${
        detail.memory.accessCount === 0 ? 'never recalled: decaying since' : 'last recalled'
      } ${fmt.date(d.lastAccessedAt)}.
      Effective importance now: <b>${d.now.value.toFixed(3)}</b>.${' '}
      ${
        d.pruneAt
          ? html`If never used again it falls below the prune threshold ${d.threshold} on <b data-testid="prune-date">${fmt.date(d.pruneAt)}</b>.`
          : html`It never decays (no finite half-life for ${detail.memory.type}).`
      }
    </p>
    <${Chart}
      data=${data}
      label=${`Effective importance over time; prune threshold ${d.threshold}${d.pruneAt ? `, crossed on ${fmt.date(d.pruneAt)}` : ''}`}
      series=${[
        { label: 'effective importance', color: '--accent' },
        { label: 'prune threshold', color: '--danger', dash: [6, 4] },
      ]}
      yMax=${1}
    />
  </section>`;
}

/** How often recall returned the memory: "never", "once, on …", "3 times, last on …". */
function recalled(count: number, last: string): string {
  if (count === 0) return 'never';
  return `${count === 1 ? 'once' : `${fmt.n(count)} times`}, last on ${fmt.date(last)}`;
}

/** Fields the page shows by name; any other field (newer contract versions) is listed as it is. */
const SHOWN = new Set([
  'specificationVersion',
  'id',
  'content',
  'type',
  'importance',
  'tags',
  'namespace',
  'tenant',
  'createdAt',
  'updatedAt',
  'lastAccessedAt',
  'accessCount',
  'contentHash',
  'supersededBy',
  'prunedAt',
  'agentId',
  'branch',
  'mergedFrom',
  'mergeId',
  'metadata',
]);

export function MemoryDetailView({ id }: { id: string }) {
  const detail = useGet<MemoryDetail>(`/api/memories/${encodeURIComponent(id)}`, {});
  const d = detail.data;
  const m = d?.memory;
  return html`<div>
    <p><a href="#/memories">← Memories</a></p>
    <${Loading} when=${detail.loading} />
    <${ErrorBox} error=${detail.error} />
    ${
      d && m
        ? html`<h1 tabindex="-1">Memory <code>${m.id}</code></h1>
          <blockquote class="content" data-testid="memory-content">${m.content}</blockquote>
          <dl class="fields">
            <dt>Status</dt><dd><span class=${`status status-${d.status}`}>${d.status}</span>${
              m.supersededBy
                ? html` by <a href=${`#/memory/${encodeURIComponent(m.supersededBy)}`}>${m.supersededBy}</a>`
                : null
            }${m.prunedAt ? ` at ${fmt.date(m.prunedAt)}` : ''}</dd>
            <dt>Type</dt><dd>${m.type}</dd>
            <dt>Namespace</dt><dd>${m.namespace}</dd>
            <dt>Tenant</dt><dd>${fmt.tenant(m.tenant)}</dd>
            <dt>Tags</dt><dd>${m.tags.length ? m.tags.join(', ') : '–'}</dd>
            <dt>Agent</dt><dd>${m.agentId ?? '–'}</dd>
            <dt>Created</dt><dd>${fmt.date(m.createdAt)}</dd>
            <dt>Updated</dt><dd>${fmt.date(m.updatedAt)}</dd>
            <dt>Recalled</dt><dd data-testid="accessed">${recalled(m.accessCount, m.lastAccessedAt)}</dd>
            ${m.mergeId ? html`<dt>Merged</dt><dd>from ${m.mergedFrom ?? '?'} (merge <code>${m.mergeId}</code>)</dd>` : null}
            ${Object.keys(m.metadata).length ? html`<dt>Metadata</dt><dd><code>${JSON.stringify(m.metadata)}</code></dd>` : null}
            ${Object.entries(m)
              .filter(([key, value]) => !SHOWN.has(key) && value !== undefined)
              .map(
                ([key, value]) =>
                  html`<dt>${key}</dt><dd><code>${typeof value === 'string' ? value : JSON.stringify(value)}</code></dd>`,
              )}
          </dl>
          <${DecayChart} detail=${d} />
          <section aria-labelledby="history">
            <h2 id="history">History (${d.history.length})</h2>
            <ol class="history" data-testid="history">
              ${d.history.map(
                (h) => html`<li>
                  <div><b class=${`action action-${h.action}`}>${h.action}</b> <span class="muted">${fmt.date(h.at)}${h.agentId ? ` · ${h.agentId}` : ''}</span></div>
                  ${h.detail ? html`<div class="muted small">${h.detail}</div>` : null}
                  ${h.memory.mergeId && h.action === 'merge_import' ? html`<div class="small">from ${h.memory.mergedFrom ?? '?'}</div>` : null}
                  <div class="small">${h.memory.content}</div>
                </li>`,
              )}
            </ol>
          </section>`
        : null
    }
  </div>`;
}
