import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { config, startSession } from './api';
import { html } from './html';
import { MemoriesView } from './views/memories';
import { MemoryDetailView } from './views/memory-detail';
import { EntitiesView } from './views/entities';
import { OverviewView } from './views/overview';
import { PreviewsView } from './views/previews';
import { RecallView } from './views/recall';
import { SkillsView } from './views/skills';

const NAV = [
  ['overview', 'Overview'],
  ['memories', 'Memories'],
  ['entities', 'Entities'],
  ['recall', 'Recall'],
  ['skills', 'Skills'],
  ['previews', 'Previews'],
] as const;

/** `#/memories?type=user` → ['memories'], URLSearchParams. */
function parseHash(hash: string): { parts: string[]; search: URLSearchParams } {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), search: new URLSearchParams(search) };
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    window.addEventListener('hashchange', on);
    // Effects run after the first paint: a hash that changed before then fired its event unheard.
    on();
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

type Theme = 'light' | 'dark';

function initialTheme(): Theme {
  const saved = localStorage.getItem('agentmem-inspector-theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function App() {
  const hash = useHash();
  const { parts, search } = parseHash(hash);
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const [section = 'overview', arg] = parts;
  useEffect(() => {
    // Move focus to the new view's heading: keyboard and screen-reader users land on it.
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [section, arg]);
  const view =
    section === 'memories'
      ? html`<${MemoriesView} search=${search} key=${hash} />`
      : section === 'memory' && arg
        ? html`<${MemoryDetailView} id=${arg} key=${arg} />`
        : section === 'entities'
          ? html`<${EntitiesView} search=${search} key=${hash} />`
          : section === 'recall'
            ? html`<${RecallView} />`
            : section === 'skills'
              ? html`<${SkillsView} />`
              : section === 'previews'
                ? html`<${PreviewsView} tab=${arg} />`
                : html`<${OverviewView} />`;
  const active = section === 'memory' ? 'memories' : section;
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <header>
      <div class="brand">agentmem <span>inspector</span></div>
      <nav aria-label="Views">
        ${NAV.map(([key, label]) => html`<a href=${`#/${key}`} aria-current=${active === key ? 'page' : undefined}>${label}</a>`)}
      </nav>
      <div class="header-right">
        ${
          config.allowWrites
            ? html`<span class="badge badge-writes" title="Started with --allow-writes">writes allowed</span>`
            : html`<span class="badge" data-testid="read-only-badge" title="Start with --allow-writes to apply merges, decay or undo">read-only</span>`
        }
        <button type="button" class="theme" onClick=${() => {
          const next = theme === 'dark' ? 'light' : 'dark';
          localStorage.setItem('agentmem-inspector-theme', next);
          setTheme(next);
        }} aria-label=${`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}>${theme === 'dark' ? '☀' : '☾'}</button>
      </div>
    </header>
    ${
      config.allowWrites
        ? null
        : html`<div class="banner" role="note">Read-only: this inspector was started without <code>--allow-writes</code>. Previews work; applying merges, decay and undo are off.</div>`
    }
    <main id="main" key=${theme}>${view}</main>
    <footer class="muted small">${config.store}</footer>
  </div>`;
}

const root = document.getElementById('app') as HTMLElement;
startSession().then(
  () => render(html`<${App} />`, root),
  (error: Error) =>
    render(
      html`<main class="unauthorized" data-testid="unauthorized"><h1>agentmem inspector</h1><p>${error.message}</p></main>`,
      root,
    ),
);
