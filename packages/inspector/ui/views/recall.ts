import { useRef, useState } from 'preact/hooks';
import type { Explanation } from '../../src/data/explain';
import { useGet } from '../api';
import { ErrorBox, Loading } from '../components';
import { fmt } from '../format';
import { html } from '../html';

type Params = { q: string; tenant?: string; branch?: string; k?: string; files?: string };

export function RecallView() {
  const [params, setParams] = useState<Params | undefined>();
  const result = useGet<Explanation>('/api/recall', params);
  const form = useRef<HTMLFormElement>(null);
  const submit = (e: Event) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(form.current!)) as Record<string, string>;
    setParams({
      q: data.q ?? '',
      tenant: data.tenant || undefined,
      branch: data.branch || undefined,
      k: data.k,
      files: data.files || undefined,
    });
  };
  const r = result.data;
  return html`<div>
    <h1 tabindex="-1">Recall explainer</h1>
    <p class="muted">Runs <code>recall()</code> exactly as an agent would (without reinforcing what it finds) and shows each signal, then the block <code>contextFor</code> would inject.</p>
    <form ref=${form} class="filters" onSubmit=${submit} aria-label="Explain recall">
      <label class="grow">Query <input name="q" type="search" required placeholder="what would the agent ask?" data-testid="recall-query" /></label>
      <label>Tenant <input name="tenant" placeholder="(default)" /></label>
      <label>Branch <input name="branch" placeholder="(store's)" /></label>
      <label>k <input name="k" type="number" min="1" max="100" value="10" class="narrow" /></label>
      <label>Files <input name="files" placeholder="src/a.ts, …" /></label>
      <button type="submit">Explain</button>
    </form>
    <${Loading} when=${result.loading} />
    <${ErrorBox} error=${result.error} />
    ${
      r
        ? html`<p class="muted small">Tenant ${fmt.tenant(r.scope.tenant)}, branch ${r.scope.branch}; namespaces ${r.scope.namespaces.join(', ')}.
            Fusion: reciprocal rank, weight keyword ${r.fusion.weights.keyword} and dense ${r.fusion.weights.dense}, k=${r.fusion.rrfK}${' '}
            (a list's contribution is weight / (k + rank)); the score is relevance × (0.98 + 0.04 × effective importance).</p>
          <table class="data" data-testid="recall-table">
            <thead><tr>
              <th class="num">#</th><th>Memory</th>
              <th class="num">Keyword rank</th><th class="num">BM25</th>
              <th class="num">Dense rank</th><th class="num">Cosine</th>
              <th class="num">Relevance</th><th class="num">Eff. importance</th><th class="num">Rerank</th><th class="num">Score</th><th>In block</th>
            </tr></thead>
            <tbody>
              ${r.results.map(
                (x) => html`<tr data-id=${x.id}>
                  <td class="num" data-label="#">${x.rank}</td>
                  <td class="primary"><a href=${`#/memory/${encodeURIComponent(x.id)}`}>${x.content}</a><div class="muted small">${x.type} · ${x.namespace}</div></td>
                  <td class="num" data-label="Keyword rank">${x.keyword ? x.keyword.rank : '–'}</td>
                  <td class="num" data-label="BM25" title=${x.keyword ? `contributes ${x.keyword.contribution.toFixed(5)}` : ''}>${fmt.score(x.keyword?.score)}</td>
                  <td class="num" data-label="Dense rank">${x.dense ? x.dense.rank : '–'}</td>
                  <td class="num" data-label="Cosine" title=${x.dense ? `contributes ${x.dense.contribution.toFixed(5)}` : ''}>${fmt.score(x.dense?.similarity)}</td>
                  <td class="num" data-label="Relevance">${fmt.score(x.relevance)}</td>
                  <td class="num" data-label="Eff. importance" title=${`× ${x.importanceFactor.toFixed(4)}`}>${fmt.score(x.effectiveImportance)}</td>
                  <td class="num" data-label="Rerank">${fmt.score(x.rerankScore)}</td>
                  <td class="num" data-label="Score"><b>${fmt.score(x.score)}</b></td>
                  <td data-label="In block">${x.inContext ? '✓' : '–'}</td>
                </tr>`,
              )}
            </tbody>
          </table>
          ${r.results.length === 0 ? html`<p class="muted">Nothing matched.</p>` : null}
          <h2>The block <code>contextFor</code> injects</h2>
          <p class="muted small">Its own defaults: 5 memories with score ≥ 0.2${r.context.skills.length ? `; skills: ${r.context.skills.map((s) => s.name).join(', ')}` : '; no skill activated'}.</p>
          <pre class="block" data-testid="context-block" tabindex="0">${r.context.block || '(empty: nothing relevant enough to inject)'}</pre>`
        : null
    }
  </div>`;
}
