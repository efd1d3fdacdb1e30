/// <reference lib="dom" />
/** The dashboard's entry: token capture, path routing (/, /runs/ID, /runs/ID/agents/NAME), theme. */
import { agentPage } from './agent-page.js';
import { captureToken, token } from './api.js';
import { clear, h } from './dom.js';
import { runPage } from './run-page.js';
import { runsPage } from './runs-page.js';

captureToken();

const app = document.getElementById('app') as HTMLElement;
const crumbs = document.getElementById('crumbs') as HTMLElement;
const live = document.getElementById('live') as HTMLElement;
const auth = document.getElementById('auth') as HTMLElement;
let cleanup: (() => void) | null = null;

const setLive = (on: boolean) => {
  live.className = `live ${on ? 'on' : ''}`;
  live.textContent = on ? '● live' : '';
};

function route(): void {
  cleanup?.();
  const parts = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const [section, runId, sub, agent] = parts;
  if (section === 'runs' && runId && sub === 'agents' && agent) {
    clear(
      crumbs,
      h('a', { href: '/', 'data-link': true }, 'Runs'),
      ' / ',
      h('a', { href: `/runs/${encodeURIComponent(runId)}`, 'data-link': true }, runId),
      ' / ',
      agent,
    );
    cleanup = agentPage(app, runId, agent, setLive);
  } else if (section === 'runs' && runId) {
    clear(crumbs, h('a', { href: '/', 'data-link': true }, 'Runs'), ' / ', runId);
    cleanup = runPage(app, runId, setLive);
  } else {
    clear(crumbs);
    cleanup = runsPage(app);
  }
  window.scrollTo(0, 0);
}

document.addEventListener('click', (e) => {
  const a = (e.target as Element).closest('a[data-link]') as HTMLAnchorElement | null;
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  if (a.pathname !== location.pathname) history.pushState(null, '', a.pathname);
  route();
});
window.addEventListener('popstate', route);

const themeButton = document.getElementById('theme');
const savedTheme = localStorage.getItem('colony.theme');
if (savedTheme) document.documentElement.dataset.theme = savedTheme;
themeButton?.addEventListener('click', () => {
  const dark = document.documentElement.dataset.theme
    ? document.documentElement.dataset.theme === 'dark'
    : matchMedia('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = dark ? 'light' : 'dark';
  localStorage.setItem('colony.theme', document.documentElement.dataset.theme);
});

auth.textContent = token() ? '🔑 actions enabled' : 'read-only';
auth.title = token()
  ? 'the server token is kept in this tab (sessionStorage)'
  : 'open the URL printed by colony serve (#token=…) to send messages, approve and stop';
route();
