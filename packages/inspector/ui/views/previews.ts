import { useMemo, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import type { DecayPreview, MergePreview } from '../../src/data/previews';
import { config, post, useGet } from '../api';
import { Chart, ConfirmDialog, ErrorBox, Loading, ReadOnlyNote } from '../components';
import { fmt } from '../format';
import { html } from '../html';

const STRATEGIES = ['newer_wins', 'local_wins', 'remote_wins', 'keep_both'] as const;

interface MergeInfo {
  id: string;
  at: string;
  source: { label: string; kind: string };
  strategy: string;
  status: string;
  undoneAt?: string;
  counts: Record<string, number>;
}

/** Runs a write after the confirmation; its outcome is shown until the next one. */
function useWrite() {
  const [pending, setPending] = useState<{ title: string; body: string; run: () => Promise<unknown> } | undefined>();
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>();
  const dialog = html`<${ConfirmDialog}
    open=${pending !== undefined}
    title=${pending?.title ?? ''}
    confirmLabel="Apply"
    onCancel=${() => setPending(undefined)}
    onConfirm=${async () => {
      const job = pending;
      setPending(undefined);
      if (!job) return;
      try {
        const result = (await job.run()) as { summary?: string };
        setOutcome({ ok: true, text: result.summary ?? 'Done.' });
      } catch (error) {
        setOutcome({ ok: false, text: (error as Error).message });
      }
    }}
  ><p>${pending?.body}</p></${ConfirmDialog}>`;
  const message = outcome
    ? html`<p class=${outcome.ok ? 'success' : 'error'} role="status" data-testid="write-outcome">${outcome.text}</p>`
    : null;
  return { ask: setPending, dialog, message, clear: () => setOutcome(undefined) };
}

function side(e: MergePreview['conflicts'][number]['local'], title: string) {
  return html`<div class="side"><div class="muted small">${title} · ${fmt.date(e.updatedAt)}${e.agentId ? ` · ${e.agentId}` : ''}</div><div>${e.content}</div></div>`;
}

function MergePreviewView({ preview, onApply }: { preview: MergePreview; onApply: (strategy: string) => void }) {
  const [strategy, setStrategy] = useState('newer_wins');
  const c = preview.counts;
  const more = (n: number) =>
    n > 0 ? html`<p class="muted small">…and ${fmt.n(n)} more (not listed; the counts above cover all).</p>` : null;
  return html`<div data-testid="merge-preview">
    <p><b>${preview.source.kind}</b> ${preview.source.label}: ${fmt.n(c.scanned)} records compared.</p>
    <div class="cards">
      <div class="card"><div class="card-label">New</div><div class="card-value" data-testid="count-new">${fmt.n(c.new)}</div>${c.newSkills ? html`<div class="small">+ ${c.newSkills} skills</div>` : null}</div>
      <div class="card"><div class="card-label">Duplicates</div><div class="card-value">${fmt.n(c.duplicates)}</div></div>
      <div class="card"><div class="card-label">Conflicts</div><div class="card-value" data-testid="count-conflicts">${fmt.n(c.conflicts)}</div></div>
    </div>
    ${preview.embedderMismatch ? html`<p class="error">The source was built with another embedder: merging needs re-embedding (CLI: <code>--reembed</code>).</p>` : null}
    <h3>Per strategy</h3>
    <table class="data" data-testid="strategy-table">
      <thead><tr><th>Strategy</th><th class="num">Imported</th><th class="num">Overwritten</th><th class="num">Kept local</th><th class="num">Copies (keep both)</th></tr></thead>
      <tbody>${STRATEGIES.map((s) => {
        const o = preview.strategies[s];
        return html`<tr><td class="primary">${s}</td><td class="num" data-label="Imported">${fmt.n(o.imported)}</td><td class="num" data-label="Overwritten">${fmt.n(o.overwritten)}</td><td class="num" data-label="Kept local">${fmt.n(o.keptLocal)}</td><td class="num" data-label="Copies (keep both)">${fmt.n(o.keptBoth)}</td></tr>`;
      })}</tbody>
    </table>
    ${
      preview.conflicts.length
        ? html`<h3>Conflicts</h3>
          <ul class="conflicts" data-testid="conflicts">${preview.conflicts.map(
            (x) => html`<li>
              <div class="muted small">${x.namespace} · <code>${x.id}</code> · newer: ${x.newer}</div>
              <div class="sides">${side(x.local, 'local')}${side(x.remote, 'source')}</div>
              <div class="small">${STRATEGIES.map((s) => html`<span class="chip">${s}: ${x.outcomes[s]}</span> `)}</div>
            </li>`,
          )}</ul>${more(preview.unlisted.conflicts)}`
        : null
    }
    ${
      preview.imports.length
        ? html`<details><summary>New (${fmt.n(c.new + c.newSkills)})</summary>
            <ul>${preview.imports.map((i) => html`<li class="small">[${i.targetNamespace}] ${i.content}</li>`)}</ul>${more(preview.unlisted.imports)}
          </details>`
        : null
    }
    ${
      preview.duplicates.length
        ? html`<details><summary>Duplicates (${fmt.n(c.duplicates)})</summary>
            <ul>${preview.duplicates.map((d) => html`<li class="small">${d.namespace}: ${d.remoteId} = ${d.localId} (${d.reason})</li>`)}</ul>${more(preview.unlisted.duplicates)}
          </details>`
        : null
    }
    <div class="apply">
      <label>Strategy <select value=${strategy} onChange=${(e: Event) => setStrategy((e.target as HTMLSelectElement).value)} data-testid="strategy">
        ${STRATEGIES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select></label>
      <button type="button" class="danger" disabled=${!config.allowWrites} onClick=${() => onApply(strategy)} data-testid="apply-merge">Apply merge…</button>
      <${ReadOnlyNote} />
    </div>
  </div>`;
}

function SnapshotPanel({ write }: { write: ReturnType<typeof useWrite> }) {
  const [path, setPath] = useState<string | undefined>();
  const preview = useGet<MergePreview>('/api/preview/snapshot', path === undefined ? undefined : { path });
  const input = useRef<HTMLInputElement>(null);
  return html`<section>
    <form class="filters" onSubmit=${(e: Event) => {
      e.preventDefault();
      write.clear();
      setPath(input.current?.value ?? '');
    }}>
      <label class="grow">Snapshot file (on this machine) <input ref=${input} name="path" required placeholder="/path/to/teammate.agentmem" data-testid="snapshot-path" /></label>
      <button type="submit">Preview</button>
    </form>
    <${Loading} when=${preview.loading} />
    <${ErrorBox} error=${preview.error} />
    ${
      preview.data && path
        ? html`<${MergePreviewView} preview=${preview.data} onApply=${(strategy: string) =>
            write.ask({
              title: 'Merge this snapshot?',
              body: `Merge ${path} with ${strategy}: ${preview.data!.strategies[strategy as 'newer_wins'].imported} new, ${preview.data!.strategies[strategy as 'newer_wins'].overwritten} overwritten. You can undo it from Merges.`,
              run: () => post('/api/apply/snapshot', { path, strategy }),
            })} />`
        : null
    }
  </section>`;
}

function BranchPanel({ write }: { write: ReturnType<typeof useWrite> }) {
  const branches = useGet<{ branch: string; total: number; current: boolean }[]>('/api/branches', {});
  const [params, setParams] = useState<{ source: string; into: string } | undefined>();
  const preview = useGet<MergePreview>('/api/preview/branch', params);
  const form = useRef<HTMLFormElement>(null);
  const names = branches.data?.map((b) => b.branch) ?? [];
  const current = branches.data?.find((b) => b.current)?.branch ?? names[0] ?? '';
  // Merging a branch into itself does nothing: offer another one first.
  const other = names.find((n) => n !== current) ?? current;
  return html`<section>
    <${ErrorBox} error=${branches.error} />
    <form ref=${form} class="filters" onSubmit=${(e: Event) => {
      e.preventDefault();
      write.clear();
      const d = Object.fromEntries(new FormData(form.current!)) as Record<string, string>;
      setParams({ source: d.source ?? '', into: d.into ?? '' });
    }}>
      <label>Merge branch <select name="source" value=${other}>${names.map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
      <label>into <select name="into" value=${current}>${names.map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
      <button type="submit" disabled=${names.length === 0}>Preview</button>
    </form>
    <${Loading} when=${preview.loading} />
    <${ErrorBox} error=${preview.error} />
    ${
      preview.data && params
        ? html`<${MergePreviewView} preview=${preview.data} onApply=${(strategy: string) =>
            write.ask({
              title: `Merge ${params.source} into ${params.into}?`,
              body: `Strategy ${strategy}. You can undo it from Merges.`,
              run: () => post('/api/apply/branch', { ...params, strategy }),
            })} />`
        : null
    }
  </section>`;
}

function DecayPanel({ write }: { write: ReturnType<typeof useWrite> }) {
  // Empty: now, the instant "Apply decay now" uses, so the preview shown first is what applying would do.
  const [date, setDate] = useState('');
  const [at, setAt] = useState<string | undefined>();
  // Bumped to run the dry run at now again (now moves on; applying changes the store).
  const [tick, setTick] = useState(0);
  const preview = useGet<DecayPreview>('/api/preview/decay', at === undefined ? { tick } : { at });
  const p = preview.data;
  const data = useMemo(
    (): uPlot.AlignedData | undefined =>
      p ? [p.histogram.map((b) => (b.from + b.to) / 2), p.histogram.map((b) => b.count)] : undefined,
    [p],
  );
  const previewedNow = at === undefined;
  return html`<section>
    <form class="filters" onSubmit=${(e: Event) => {
      e.preventDefault();
      write.clear();
      setAt(date ? new Date(`${date}T00:00:00Z`).toISOString() : undefined);
      if (!date) setTick((t) => t + 1); // now has moved on since the last dry run
    }}>
      <label>Decay to (UTC date; empty: now) <input type="date" value=${date} onInput=${(e: Event) => setDate((e.target as HTMLInputElement).value)} data-testid="decay-date" /></label>
      <button type="submit">Dry run</button>
    </form>
    <${Loading} when=${preview.loading} />
    <${ErrorBox} error=${preview.error} />
    ${
      p && data
        ? html`<p data-testid="decay-report">${previewedNow ? `Now (${fmt.date(p.at)} UTC)` : `At ${fmt.date(p.at)} UTC`}: of ${fmt.n(p.report.scanned)} active memories, <b>${fmt.n(p.report.pruned)}</b> would be pruned
              (effective importance below ${p.threshold}), ${fmt.n(p.report.decayed)} decayed but stay, ${fmt.n(p.report.untouched)} untouched.</p>
            <${Chart} data=${data} time=${false} xRange=${[0, 1]} label="Active memories by effective importance" xLabel="effective importance" yLabel="memories"
              series=${[{ label: 'memories', color: '--accent', bars: true }]} />
            <div class="apply">
              <button type="button" class="danger" disabled=${!config.allowWrites || !previewedNow} data-testid="apply-decay" onClick=${() =>
                write.ask({
                  title: 'Apply decay now?',
                  body: `Prunes every active memory whose effective importance is below ${p.threshold} now: ${fmt.n(p.report.pruned)} in the dry run above (restorable with agentmem restore).`,
                  run: async () => {
                    const r = await post<{ pruned: number; scanned: number }>('/api/apply/decay', {});
                    setTick(tick + 1);
                    return { summary: `Decay applied: ${r.pruned} of ${r.scanned} pruned.` };
                  },
                })}>Apply decay now…</button>
              ${
                previewedNow
                  ? html`<${ReadOnlyNote} />`
                  : html`<p class="note" data-testid="decay-not-now">This dry run is at another date; decay is only applied now. Clear the date and run it again to see what applying does.</p>`
              }
            </div>`
        : null
    }
  </section>`;
}

function MergesPanel({ write }: { write: ReturnType<typeof useWrite> }) {
  const [tick, setTick] = useState(0);
  const merges = useGet<MergeInfo[]>('/api/merges', { tick });
  return html`<section>
    <${ReadOnlyNote} />
    <${Loading} when=${merges.loading} />
    <${ErrorBox} error=${merges.error} />
    ${merges.data?.length === 0 ? html`<p class="muted">No merges yet.</p>` : null}
    ${
      merges.data?.length
        ? html`<table class="data" data-testid="merges">
            <thead><tr><th>When</th><th>Source</th><th>Strategy</th><th class="num">Imported</th><th>Status</th><th></th></tr></thead>
            <tbody>${merges.data.map(
              (m) => html`<tr>
                <td data-label="When">${fmt.date(m.at)}</td><td class="wide" data-label="Source">${m.source.kind}: ${m.source.label}</td><td data-label="Strategy">${m.strategy}</td>
                <td class="num" data-label="Imported">${fmt.n(m.counts.imported ?? 0)}</td><td data-label="Status">${m.status}${m.undoneAt ? ` ${fmt.date(m.undoneAt)}` : ''}</td>
                <td>${
                  m.status === 'applied'
                    ? html`<button type="button" disabled=${!config.allowWrites} data-testid="undo" onClick=${() =>
                        write.ask({
                          title: 'Undo this merge?',
                          body: `Restores the state before merge ${m.id} (${m.source.label}).`,
                          run: async () => {
                            const r = await post('/api/apply/undo', { mergeId: m.id });
                            setTick(tick + 1);
                            return r;
                          },
                        })}>Undo…</button>`
                    : null
                }</td>
              </tr>`,
            )}</tbody>
          </table>`
        : null
    }
  </section>`;
}

const TABS = { snapshot: 'Snapshot merge', branch: 'Branch merge', decay: 'Decay', merges: 'Merges' } as const;
type Tab = keyof typeof TABS;

export function PreviewsView({ tab }: { tab?: string }) {
  const current: Tab = tab && tab in TABS ? (tab as Tab) : 'snapshot';
  const write = useWrite();
  const Panel = { snapshot: SnapshotPanel, branch: BranchPanel, decay: DecayPanel, merges: MergesPanel }[current];
  return html`<div>
    <h1 tabindex="-1">Previews</h1>
    <p class="muted">What a merge or a decay pass would do, before it does it.</p>
    <nav class="tabs" aria-label="Operations">
      ${Object.entries(TABS).map(
        ([key, label]) =>
          html`<a href=${`#/previews/${key}`} aria-current=${key === current ? 'page' : undefined}>${label}</a>`,
      )}
    </nav>
    ${write.message}
    <${Panel} write=${write} />
    ${write.dialog}
  </div>`;
}
