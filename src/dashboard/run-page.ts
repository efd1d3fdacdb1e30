/// <reference lib="dom" />
/**
 * A run, live: summary, agents (virtualised), Gantt timeline (canvas), tokens and cost, integration
 * queue (Approve / Reject for a request waiting for approval; Diff opens a request's change,
 * merge-diff.ts), the task board (task-board.ts), shared-context feed filterable by kind,
 * messages with a send form, limits, claims, and the stop action. The server sends a compact view;
 * SSE says when the log grew and the view is refetched (throttled), so a 100k-event run never streams
 * its whole log to the browser.
 */

import type {
  AgentRow,
  ContextItem,
  MergeItem,
  MessageItem,
  CompactRunView as RunView,
} from '../view/compact-types.js';
import { GLOSSARY } from '../view/glossary.js';
import type { LimitRow } from '../view/limits.js';
import { sandboxLine } from '../view/sandbox.js';
import { AGENT_STATES } from '../view/types.js';
import { getJson, postJson, streamUrl, token } from './api.js';
import { renderUsageCharts, toChartInput } from './charts.js';
import { clear, clock, count, h, ms, toast, usd } from './dom.js';
import { mergeDiff } from './merge-diff.js';
import { taskBoard } from './task-board.js';
import { timelineChart } from './timeline.js';
import { virtualList } from './virtual-list.js';

const KINDS = ['FAIL', 'FACT', 'OBSERVED', 'CLAIM', 'PATCH'] as const;

function panel(title: string, ...body: Array<Node | string>): HTMLElement {
  return h('section', { class: 'panel' }, h('h2', {}, title), ...body);
}

function card(label: string, value: HTMLElement | string, cls = '', title?: string): HTMLElement {
  return h(
    'div',
    { class: `card ${cls}`, title, 'data-card': label },
    h('div', { class: 'card-label' }, label),
    h('div', { class: 'card-value' }, value),
  );
}

export function statusBadge(status: string): HTMLElement {
  const title = status === 'interrupted' ? 'its process is gone: colony resume RUN finishes it' : undefined;
  return h('span', { class: `badge s-${status}`, 'data-status': status, title }, status.replace(/_/g, ' '));
}

export function runPage(root: HTMLElement, runId: string, setLive: (on: boolean) => void): () => void {
  let view: RunView | null = null;
  let kindFilter = new Set<string>(KINDS);
  const cards = h('div', { class: 'cards', id: 'cards' });
  const actions = h('div', { class: 'actions' });
  const stateBar = h('div', { class: 'statebar', id: 'statebar' });
  const agentList = virtualList<AgentRow>(
    30,
    420,
    (a) =>
      h(
        'a',
        {
          class: `agent-row st-${a.state}`,
          href: `/runs/${encodeURIComponent(runId)}/agents/${encodeURIComponent(a.name)}`,
          'data-link': true,
          'data-agent': a.name,
          'data-state': a.state,
          'data-worker': a.worker,
        },
        h('span', { class: 'dot' }),
        h('span', { class: 'a-name' }, a.name),
        h('span', { class: 'a-state' }, a.state),
        // Fleet runs only: an in-process agent has no worker and no column.
        a.worker === null ? null : h('span', { class: 'a-worker', title: `worker ${a.worker}` }, a.worker),
        h(
          'span',
          { class: 'a-model', title: `model ${a.model ?? '–'}`, 'data-model': a.model },
          a.model ?? '',
        ),
        h('span', { class: 'a-claim', title: a.claim ?? '' }, a.claim ?? ''),
        h('span', { class: 'a-action', title: a.lastAction }, a.lastAction),
        h('span', { class: 'a-num' }, `${a.steps} st`),
        h('span', { class: 'a-num', 'data-cost': '' }, agentCost(a)),
      ),
    { className: 'agents', empty: 'no agents yet' },
  );
  const timeline = timelineChart();
  const timelineNote = h('div', { class: 'muted small' });
  const charts = h('div', { class: 'charts' });
  const mergesBox = h('div', {});
  const diffPanel = mergeDiff(runId);
  const board = taskBoard(runId);
  const limitsBox = h('div', { class: 'limits' });
  const claimsBox = h('div', {});
  const chips = h('div', { class: 'chips' });
  const contextList = virtualList<ContextItem>(
    28,
    360,
    (c) =>
      h(
        'div',
        { class: `ctx k-${c.kind}` },
        h('span', { class: 'kind' }, c.kind),
        h('span', { class: 'ctx-author' }, c.author ?? 'run'),
        h('span', { class: 'ctx-summary', title: c.summary }, c.summary),
        h('span', { class: 'muted' }, clock(c.ts)),
      ),
    { className: 'feed', empty: 'nothing posted yet' },
  );
  const messageList = virtualList<MessageItem>(
    28,
    300,
    (m) =>
      h(
        'div',
        { class: `msg ${m.from === 'user' ? 'from-user' : ''}` },
        h('span', { class: 'msg-route' }, `${m.from ?? '?'} → ${m.to ?? `#${m.channel}`}`),
        h('span', { class: 'msg-text', title: m.text }, m.text),
        h('span', { class: 'muted' }, m.delivered ? '✓ delivered' : ''),
        h('span', { class: 'muted' }, clock(m.ts)),
      ),
    { className: 'feed', empty: 'no messages yet' },
  );
  const toSelect = h('select', { id: 'msg-to', 'aria-label': 'recipient' });
  const msgText = h('input', {
    id: 'msg-text',
    type: 'text',
    placeholder: 'Message (a direct message interrupts the agent)',
    autocomplete: 'off',
  });
  const sendForm = h(
    'form',
    { class: 'send', id: 'send-form' },
    toSelect,
    msgText,
    h('button', { type: 'submit', id: 'msg-send' }, 'Send'),
  );
  sendForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = msgText.value.trim();
    if (!text) return;
    const target = toSelect.value;
    const body = target.startsWith('#') ? { channel: target.slice(1), text } : { to: target, text };
    const r = await postJson(`/api/runs/${encodeURIComponent(runId)}/messages`, body);
    if (r.ok) {
      msgText.value = '';
      toast(`sent to ${target}`);
    } else
      toast(
        r.status === 401 ? 'needs the server token: open the URL colony serve printed' : r.error,
        'error',
      );
  });

  for (const k of KINDS) {
    const chip = h('button', { class: `chip on k-${k}`, type: 'button', 'data-kind': k }, k);
    chip.addEventListener('click', () => {
      if (kindFilter.has(k)) kindFilter.delete(k);
      else kindFilter.add(k);
      if (kindFilter.size === 0) kindFilter = new Set(KINDS);
      for (const c of chips.querySelectorAll<HTMLElement>('.chip'))
        c.classList.toggle('on', kindFilter.has(c.dataset.kind ?? ''));
      renderContext();
    });
    chips.append(chip);
  }

  const header = h('div', { class: 'run-head' }, h('h1', { id: 'run-title' }, runId), actions);
  const goal = h('p', { class: 'goal muted' });
  // An interrupted run (its process is gone) says what finishes it.
  const runNote = h('p', { class: 'run-note', id: 'run-note' });
  clear(
    root,
    header,
    goal,
    runNote,
    cards,
    h(
      'div',
      { class: 'grid2' },
      panel('Agents', stateBar, agentList.el),
      panel('Timeline', timeline.el, timelineNote),
    ),
    h('div', { class: 'grid2' }, panel('Tokens and cost', charts), panel('Integration queue', mergesBox)),
    panel('Merge request', diffPanel.el),
    panel('Task board', board.el),
    h(
      'div',
      { class: 'grid2' },
      panel('Shared context', chips, contextList.el),
      panel('Messages', messageList.el, sendForm),
    ),
    h('div', { class: 'grid2' }, panel('Limits', limitsBox), panel('Claims held', claimsBox)),
  );

  function renderContext(): void {
    if (!view) return;
    const items = view.context.filter((c) => kindFilter.has(c.kind)).reverse();
    contextList.update(items);
  }

  function renderMerges(merges: MergeItem[]): void {
    if (merges.length === 0) {
      clear(mergesBox, h('p', { class: 'muted' }, 'no merge requests yet'));
      return;
    }
    const landed = merges.filter((m) => m.status === 'landed').length;
    const rejected = merges.filter((m) => m.status === 'rejected').length;
    const rows = merges.slice(0, 200).map((m) =>
      h(
        'tr',
        { class: `mr mr-${m.status}` },
        h('td', {}, `#${m.mr}`),
        h('td', {}, m.agent ?? ''),
        h('td', {}, h('span', { class: `badge m-${m.status}` }, m.status.replace('_', ' '))),
        h(
          'td',
          { class: 'wrap' },
          m.reason ? `${m.reason}${m.files.length ? `: ${m.files.slice(0, 3).join(', ')}` : ''}` : m.note,
        ),
        h(
          'td',
          {},
          h(
            'button',
            {
              class: 'small-btn ghost',
              type: 'button',
              'data-diff': m.mr,
              onclick: () => diffPanel.open(m.mr, m.status),
              title: 'its change and verify output',
            },
            'Diff',
          ),
          ...(m.status === 'awaiting_approval'
            ? [
                h(
                  'button',
                  {
                    class: 'small-btn',
                    type: 'button',
                    'data-approve': m.mr,
                    onclick: () => void approve(m.mr),
                    disabled: token() === null,
                    title: token() ? 'land this merge request' : 'needs the server token',
                  },
                  'Approve',
                ),
                h(
                  'button',
                  {
                    class: 'small-btn',
                    type: 'button',
                    'data-reject': m.mr,
                    onclick: () => void reject(m.mr),
                    disabled: token() === null,
                    title: token() ? 'send it back to its author with a reason' : 'needs the server token',
                  },
                  'Reject',
                ),
              ]
            : []),
        ),
      ),
    );
    clear(
      mergesBox,
      h(
        'p',
        { class: 'muted small' },
        `${landed} landed · ${rejected} rejected · ${merges.length - landed - rejected} pending`,
      ),
      h('div', { class: 'table-scroll' }, h('table', { class: 'tbl' }, h('tbody', {}, ...rows))),
    );
  }

  async function approve(mr: number): Promise<void> {
    const r = await postJson(`/api/runs/${encodeURIComponent(runId)}/merges/${mr}/approve`);
    toast(r.ok ? `approved merge request ${mr}` : r.error, r.ok ? 'ok' : 'error');
  }

  async function reject(mr: number): Promise<void> {
    const reason = prompt(`Reject merge request ${mr}: why? (its author reads this)`)?.trim();
    if (!reason) return;
    const r = await postJson(`/api/runs/${encodeURIComponent(runId)}/merges/${mr}/reject`, { reason });
    toast(r.ok ? `rejected merge request ${mr}` : r.error, r.ok ? 'ok' : 'error');
  }

  async function stop(): Promise<void> {
    if (!confirm(`Stop run ${runId}? Agents end; the result branch keeps what landed.`)) return;
    const r = await postJson(`/api/runs/${encodeURIComponent(runId)}/stop`, {
      reason: 'stopped from the dashboard',
    });
    toast(r.ok ? 'stop requested' : r.error, r.ok ? 'ok' : 'error');
  }

  function render(v: RunView): void {
    view = v;
    document.title = `${v.status === 'running' ? '● ' : ''}${runId} · Colony`;
    goal.textContent = v.goal ?? '';
    runNote.textContent = v.status === 'interrupted' ? `Interrupted: ${v.reason ?? ''}` : '';
    clear(
      actions,
      statusBadge(v.status),
      // An interrupted run can be stopped too (it is then finished as stopped at once).
      v.status === 'running' || v.status === 'interrupted'
        ? h(
            'button',
            {
              class: 'danger',
              type: 'button',
              id: 'stop',
              onclick: () => void stop(),
              disabled: token() === null,
              title: token() ? 'stop this run' : 'needs the server token',
            },
            'Stop run',
          )
        : '',
    );
    // Every token the run used, cached input and cache writes included (as in the runs list).
    const t = v.tokens;
    const tokens = t.input + t.cachedInput + t.cacheWrite + t.output;
    const prompt = t.input + t.cachedInput;
    clear(
      cards,
      card('Topology', v.topology ?? '–'),
      card('Agents', String(v.agents.length)),
      card('Wall-clock', ms(v.wallClockMs)),
      card('Cost', v.costUsd === null && v.modelCalls > 0 ? 'unpriced' : usd(v.costUsd), '', GLOSSARY.cost),
      card(
        'Tokens',
        count(tokens),
        '',
        `${t.input} uncached input + ${t.cachedInput} cached input + ${t.cacheWrite} cache writes + ${t.output} output`,
      ),
      card(
        'Cached input',
        prompt ? `${Math.round((100 * t.cachedInput) / prompt)}%` : '–',
        '',
        GLOSSARY.cachedInput,
      ),
      card(
        'Steps (critical)',
        `${v.modelCalls} (${v.timeline.critical.steps})`,
        '',
        `${GLOSSARY.totalSteps}; in brackets the ${GLOSSARY.criticalSteps}`,
      ),
      card(
        'Verify',
        v.verify ? (v.verify.passed ? 'passed' : 'failed') : '–',
        v.verify ? (v.verify.passed ? 'good' : 'bad') : '',
      ),
      card(
        'Sandbox',
        v.sandbox
          ? h(
              'span',
              { title: sandboxLine(v.sandbox), 'data-sandbox': v.sandbox.enabled ? 'on' : 'off' },
              v.sandbox.enabled ? (v.sandbox.network ? 'on (network)' : 'on') : 'OFF',
            )
          : '–',
        v.sandbox ? (v.sandbox.enabled ? 'good' : 'bad') : '',
      ),
    );
    clear(
      stateBar,
      ...AGENT_STATES.map((s) =>
        h(
          'span',
          { class: `pill st-${s}`, 'data-count': s },
          h('span', { class: 'dot' }),
          `${s} ${v.counts[s]}`,
        ),
      ),
    );
    agentList.update(v.agents);
    timeline.update(v.timeline);
    const crit = v.timeline.critical;
    const late = v.timeline.startMs - v.timeline.runStartMs;
    timelineNote.textContent =
      crit.method === 'none'
        ? 'No steps yet.'
        : `Critical path (red): ${crit.steps} steps over ${ms(crit.durationMs)} — ${crit.description}. Blue model call, green tool, amber waiting, red error.${late >= 100 ? ` From the first step, ${ms(late)} after the run started.` : ''}`;
    timelineNote.title = GLOSSARY.criticalSteps;
    void renderUsageCharts(charts, toChartInput(v.series, v.timeline.startMs, v.timeline.endMs, v.costUsd));
    renderMerges(v.merges);
    for (const m of v.merges) diffPanel.statusOf(m.mr, m.status);
    board.refresh(v.lastSeq);
    renderContext();
    messageList.update([...v.messages].reverse());
    const current = toSelect.value;
    const options = [
      // Timeline rows are already in name order (peer-2 before peer-10).
      ...v.timeline.rows.map((r) => r.agent),
      '#all',
    ];
    if (toSelect.options.length !== options.length)
      clear(
        toSelect,
        ...options.map((o) => h('option', { value: o }, o.startsWith('#') ? `channel ${o}` : o)),
      );
    if (current && options.includes(current)) toSelect.value = current;
    clear(
      limitsBox,
      ...v.limits.map((l) => {
        const pct = l.limit && l.used !== null ? Math.min(100, (100 * l.used) / l.limit) : 0;
        return h(
          'div',
          { class: `limit ${l.hit ? 'hit' : ''}`, title: l.note, 'data-limit': l.name },
          h('span', { class: 'limit-name' }, l.name),
          h('span', { class: 'meter' }, h('span', { style: `width:${pct.toFixed(1)}%` })),
          h('span', { class: 'limit-val' }, `${limitValue(l)}${l.hit ? ' · HIT' : ''}`),
        );
      }),
    );
    clear(
      claimsBox,
      v.claims.length === 0
        ? h('p', { class: 'muted' }, 'no claims held')
        : h(
            'div',
            { class: 'table-scroll' },
            h(
              'table',
              { class: 'tbl' },
              h(
                'tbody',
                {},
                ...v.claims
                  .slice(0, 300)
                  .map((c) =>
                    h(
                      'tr',
                      {},
                      h('td', {}, c.agent),
                      h('td', { class: 'mono' }, c.scope),
                      h('td', { class: 'wrap' }, c.summary),
                    ),
                  ),
              ),
            ),
          ),
    );
  }

  // Refetch the view when the log grows: at most once per interval, longer for big runs.
  let inflight = false;
  let dirty = false;
  let timer = 0;
  let closed = false;
  const load = async (): Promise<void> => {
    if (inflight) {
      dirty = true;
      return;
    }
    inflight = true;
    const r = await getJson<RunView>(`/api/runs/${encodeURIComponent(runId)}`);
    inflight = false;
    if (closed) return;
    if (r.ok) {
      render(r.value);
      if (r.value.status !== 'running') endStream();
    } else clear(root, h('p', { class: 'error' }, `Cannot load run ${runId}: ${r.error}`));
    if (dirty) {
      dirty = false;
      schedule();
    }
  };
  const schedule = () => {
    if (timer) return;
    const wait = view && view.events > 20_000 ? 1500 : 400;
    timer = window.setTimeout(() => {
      timer = 0;
      void load();
    }, wait);
  };
  // A finished run has nothing more to stream: no connection, no "live" mark; a running one's stream
  // closes once a refetch shows it finished.
  let source: EventSource | null = null;
  const endStream = () => {
    source?.close();
    source = null;
    setLive(false);
  };
  void load().then(() => {
    if (closed || view?.status !== 'running') return;
    source = new EventSource(
      streamUrl(`/api/runs/${encodeURIComponent(runId)}/stream?after=${view?.lastSeq ?? 0}`),
    );
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    source.onmessage = () => schedule();
  });
  // Running runs also tick (wall-clock, idle) without events; an interrupted one, to see it resumed.
  const tick = window.setInterval(() => {
    if (view?.status === 'running' || view?.status === 'interrupted') schedule();
  }, 5000);
  return () => {
    closed = true;
    endStream();
    window.clearInterval(tick);
    window.clearTimeout(timer);
  };
}

/** An agent's cost: "unpriced" when it made calls and none had a price, never $0.00. */
function agentCost(a: AgentRow): string {
  if (a.costUsd !== null) return usd(a.costUsd);
  return a.steps > 0 ? 'unpriced' : '–';
}

/** A limit's use and bound in its unit: dollars, durations (14s / 24h 00m), or counts. */
function limitValue(l: LimitRow): string {
  const bound = (f: (n: number) => string) => (l.limit === null ? '∞' : f(l.limit));
  if (l.unit === 'USD') return `${l.used === null ? 'unpriced' : usd(l.used)} / ${bound(usd)}`;
  if (l.unit === 'ms') return `${ms(l.used ?? 0)} / ${bound(ms)}`;
  return `${count(Math.round(l.used ?? 0))} / ${bound(count)} ${l.unit}`.trimEnd();
}
