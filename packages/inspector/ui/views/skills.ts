import { useRef, useState } from 'preact/hooks';
import type { SkillActivation, SkillRow } from '../../src/data/skills';
import { useGet } from '../api';
import { ErrorBox, Loading } from '../components';
import { fmt } from '../format';
import { html } from '../html';

function signals(v: SkillActivation['verdicts'][number]) {
  const s = v.signals;
  const parts: string[] = [];
  if (s.semantic) parts.push(`semantic ${fmt.score(s.semantic.score)} (cosine ${fmt.score(s.semantic.cosine)})`);
  if (s.keyword) parts.push(`keywords: ${s.keyword.matched.join(', ')}`);
  if (s.glob) {
    // A skill named for the file's type (bash for deploy.sh) claims it without a glob.
    const named = (s.glob.matches ?? []).filter((m) => m.byName).map((m) => `name ${m.pattern}`);
    parts.push(`glob ${[...s.glob.patterns, ...new Set(named)].join(', ')} ← ${s.glob.paths.join(', ')}`);
  }
  return parts.length ? parts.join(' · ') : '–';
}

export function SkillsView() {
  const library = useGet<SkillRow[]>('/api/skills', {});
  const [params, setParams] = useState<{ message: string; files?: string } | undefined>();
  const activation = useGet<SkillActivation>('/api/skills/activate', params);
  const form = useRef<HTMLFormElement>(null);
  const submit = (e: Event) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(form.current!)) as Record<string, string>;
    setParams({ message: data.message ?? '', files: data.files || undefined });
  };
  const a = activation.data;
  return html`<div>
    <h1 tabindex="-1">Skills</h1>
    <form ref=${form} class="filters" onSubmit=${submit} aria-label="Try skill activation">
      <label class="grow">Message <input name="message" type="search" placeholder="a user message" data-testid="skills-message" /></label>
      <label>Files <input name="files" placeholder="src/app.tsx, …" /></label>
      <button type="submit">Activate</button>
    </form>
    <${Loading} when=${activation.loading} />
    <${ErrorBox} error=${activation.error} />
    ${
      a
        ? html`<p class="muted small">Score = ${a.rules.weights.semantic} × semantic + ${a.rules.weights.keyword} × keyword + ${a.rules.weights.glob} × glob + ${a.rules.weights.importance} × importance.
              A skill needs a signal; semantic-only needs score ≥ ${a.rules.minScore}; then within ${a.rules.gapRatio} × the best, at most k=${a.rules.k}.</p>
            <table class="data" data-testid="skills-verdicts">
              <thead><tr><th>Skill</th><th>Active</th><th class="num">Score</th><th>Signals</th><th>Why not</th></tr></thead>
              <tbody>${a.verdicts.map(
                (v) => html`<tr class=${v.activated ? 'activated' : ''}>
                  <td class="primary">${v.name}</td>
                  <td data-label="Active">${v.activated ? html`<b>yes</b> <span class="muted small">(${v.activatedBy})</span>` : 'no'}</td>
                  <td class="num" data-label="Score">${fmt.score(v.score)}</td>
                  <td class="small wide" data-label="Signals">${signals(v)}</td>
                  <td class="small wide" data-label="Why not">${v.reason ?? '–'}</td>
                </tr>`,
              )}</tbody>
            </table>`
        : null
    }
    <h2>Library</h2>
    <${Loading} when=${library.loading} />
    <${ErrorBox} error=${library.error} />
    ${
      library.data
        ? library.data.length === 0
          ? html`<p class="muted">No skills registered (<code>agentmem skills load DIR</code>).</p>`
          : html`<table class="data" data-testid="skills-library">
              <thead><tr><th>Name</th><th>Format</th><th>Globs</th><th>Keywords</th><th>Always</th><th>Description</th></tr></thead>
              <tbody>${library.data.map(
                (s) => html`<tr>
                  <td class="primary">${s.name}${s.path ? html`<div class="muted small">${s.path}</div>` : null}</td>
                  <td data-label="Format">${s.format}</td>
                  <td class="small" data-label="Globs">${s.globs.join(', ') || '–'}</td>
                  <td class="small" data-label="Keywords">${s.keywords.join(', ') || '–'}</td>
                  <td data-label="Always">${s.alwaysApply ? 'yes' : 'no'}</td>
                  <td class="small wide" data-label="Description">${s.description}</td>
                </tr>`,
              )}</tbody>
            </table>`
        : null
    }
  </div>`;
}
