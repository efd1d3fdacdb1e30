/// <reference lib="dom" />
/**
 * The runs page: a form to start a run, what needs you across recent runs, and the runs list (status,
 * topology, agents, wall-clock, cost, verify); refreshed every few seconds.
 */
import type { NeedsYouItem } from '../server/needs-you.js';
import type { RunListItem } from '../server/run-list.js';
import { getJson } from './api.js';
import { ago, clear, count, h, ms, usd } from './dom.js';
import { needsYouRows } from './needs-you.js';
import { newRunForm } from './new-run-form.js';
import { statusBadge } from './run-page.js';

export function runsPage(root: HTMLElement): () => void {
  const body = h('tbody', {});
  const note = h('p', { class: 'muted small' });
  const needsList = h('ul', { class: 'needs-list', id: 'needs-you' });
  const needsNote = h('span', { class: 'muted small', id: 'needs-count' });
  const openRun = (runId: string) => {
    history.pushState(null, '', `/runs/${encodeURIComponent(runId)}`);
    window.dispatchEvent(new PopStateEvent('popstate'));
  };
  clear(
    root,
    h('div', { class: 'run-head' }, h('h1', {}, 'Runs')),
    newRunForm(openRun),
    h('section', { class: 'panel needs-panel' }, h('h2', {}, 'Needs you ', needsNote), needsList),
    note,
    h(
      'section',
      { class: 'panel' },
      h(
        'div',
        { class: 'table-scroll tall' },
        h(
          'table',
          { class: 'tbl runs' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...[
                'Run',
                'Status',
                'Topology',
                'Agents',
                'Wall-clock',
                'Cost',
                'Tokens',
                'Verify',
                'Started',
                'Goal',
              ].map((t) => h('th', {}, t)),
            ),
          ),
          body,
        ),
      ),
    ),
  );
  let closed = false;
  const loadNeeds = async () => {
    const r = await getJson<{ items: NeedsYouItem[] }>('/api/needs-you');
    if (closed) return;
    if (!r.ok) {
      needsNote.textContent = r.error;
      return;
    }
    needsNote.textContent =
      r.value.items.length === 0 ? 'nothing waits for you' : `(${r.value.items.length})`;
    clear(needsList, ...needsYouRows(r.value.items));
  };
  const load = async () => {
    void loadNeeds();
    const r = await getJson<{ runs: RunListItem[] }>('/api/runs?limit=200');
    if (closed) return;
    if (!r.ok) {
      clear(note, h('span', { class: 'error' }, r.error));
      return;
    }
    note.textContent =
      r.value.runs.length === 0
        ? 'No runs yet: try `colony demo`.'
        : `${r.value.runs.length} runs, newest first`;
    clear(
      body,
      ...r.value.runs.map((run) =>
        h(
          'tr',
          { 'data-run': run.runId },
          h(
            'td',
            { class: 'mono' },
            h('a', { href: `/runs/${encodeURIComponent(run.runId)}`, 'data-link': true }, run.runId),
          ),
          h('td', {}, statusBadge(run.status)),
          h('td', {}, run.topology),
          h('td', { class: 'num' }, String(run.agents)),
          h('td', { class: 'num' }, ms(run.wallClockMs)),
          h('td', { class: 'num' }, run.costUsd === null && run.tokens > 0 ? 'unpriced' : usd(run.costUsd)),
          h(
            'td',
            { class: 'num', title: 'all tokens: uncached and cached input, cache writes, output' },
            count(run.tokens),
          ),
          h(
            'td',
            {},
            run.verify
              ? h(
                  'span',
                  {
                    class: `badge ${run.verify.passed ? 's-succeeded' : 's-failed'}`,
                    title: run.verify.command,
                  },
                  run.verify.passed ? 'passed' : 'failed',
                )
              : h('span', { class: 'muted' }, '–'),
          ),
          h('td', { class: 'muted' }, ago(run.createdAt)),
          h('td', { class: 'wrap goal-cell', title: run.goal }, run.goal),
        ),
      ),
    );
  };
  void load();
  const timer = window.setInterval(() => void load(), 3000);
  return () => {
    closed = true;
    window.clearInterval(timer);
  };
}
