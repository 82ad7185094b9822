import { useEffect, useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import type { Overview, Timeline } from '../../src/data/overview';
import { useGet } from '../api';
import { Card, Chart, ErrorBox, Loading } from '../components';
import { fmt } from '../format';
import { html } from '../html';

function memoriesLink(filter: Record<string, string>): string {
  return `#/memories?${new URLSearchParams(filter).toString()}`;
}

function TimelineChart() {
  const timeline = useGet<Timeline>('/api/timeline', {});
  const data = useMemo((): uPlot.AlignedData | undefined => {
    const t = timeline.data;
    if (!t || t.buckets.length === 0) return undefined;
    return [
      t.buckets.map((b) => b.start / 1000),
      t.buckets.map((b) => Object.values(b.counts).reduce((s, n) => s + n, 0)),
    ];
  }, [timeline.data]);
  const t = timeline.data;
  const perAction = t ? t.actions.map((a) => [a, t.buckets.reduce((s, b) => s + (b.counts[a] ?? 0), 0)] as const) : [];
  return html`<section aria-labelledby="activity">
    <h2 id="activity">Activity</h2>
    <${Loading} when=${timeline.loading} />
    <${ErrorBox} error=${timeline.error} />
    ${t && t.total === 0 ? html`<p class="muted">No history yet.</p>` : null}
    ${
      data && t
        ? html`<p class="muted small">${fmt.n(t.total)} changes in history, per ${t.bucketMs > 86_400_000 ? 'week' : 'day'} (every tenant).</p>
          <${Chart} data=${data} xRange=${[t.buckets[0]!.start / 1000 - t.bucketMs / 2000, t.buckets[t.buckets.length - 1]!.start / 1000 + t.bucketMs / 2000]} label="Changes per ${t.bucketMs > 86_400_000 ? 'week' : 'day'}" series=${[{ label: 'changes', color: '--accent', bars: true }]} height=${200} />
          <ul class="chips">${perAction.map(([a, n]) => html`<li><b>${a}</b> ${fmt.n(n)}</li>`)}</ul>`
        : null
    }
  </section>`;
}

export function OverviewView() {
  const overview = useGet<Overview>('/api/overview', {});
  const o = overview.data;
  useEffect(() => {
    // Time to first meaningful paint, read by the bench and the docs.
    if (o) requestAnimationFrame(() => performance.mark('agentmem:overview'));
  }, [o]);
  return html`<div>
    <h1 tabindex="-1">Overview</h1>
    <${Loading} when=${overview.loading} />
    <${ErrorBox} error=${overview.error} />
    ${
      o
        ? html`<div class="cards" data-testid="overview-cards">
            <${Card} label="Active memories" value=${fmt.n(o.totals.active)} />
            <${Card} label="Inactive" value=${fmt.n(o.totals.inactive)} hint="superseded or pruned" />
            <${Card} label="Tenants" value=${fmt.n(o.totals.tenants)} />
            <${Card} label="Branches" value=${fmt.n(o.totals.branches)} />
            <${Card} label="Skills" value=${fmt.n(o.skills)} />
            <${Card} label="Embedder" value=${html`<span class="small-value">${o.embedder.id}</span>`} hint=${`${o.embedder.dimension} dimensions${o.embedder.lexical ? ', lexical' : ''}`} />
          </div>
          <p class="muted small">
            ${`${o.store.provider} · ${o.store.label} · prune threshold ${o.settings.pruneThreshold} · half-life `}${Object.entries(
              o.settings.halfLifeHours,
            )
              .map(([t, h]) => `${t} ${fmt.hours(h)}`)
              .join(', ')}
          </p>
          <section aria-labelledby="per-scope">
            <h2 id="per-scope">Memories per tenant, branch and type</h2>
            <table class="data" data-testid="overview-table">
              <thead><tr><th>Tenant</th><th>Branch</th><th>Namespace</th><th>Type</th><th class="num">Active</th><th class="num">Inactive</th></tr></thead>
              <tbody>
                ${o.rows.map(
                  (r) => html`<tr>
                    <td data-label="Tenant">${fmt.tenant(r.tenant)}</td>
                    <td data-label="Branch">${r.branch || html`<span class="muted">global</span>`}</td>
                    <td data-label="Namespace"><a href=${memoriesLink({ tenant: r.tenant, namespace: r.namespace, type: r.type })}>${r.namespace}</a></td>
                    <td data-label="Type">${r.type}</td>
                    <td class="num" data-label="Active">${fmt.n(r.active)}</td>
                    <td class="num" data-label="Inactive">${fmt.n(r.inactive)}</td>
                  </tr>`,
                )}
              </tbody>
            </table>
            ${o.rows.length === 0 ? html`<p class="muted">No memories yet.</p>` : null}
          </section>
          <${TimelineChart} />`
        : null
    }
  </div>`;
}
