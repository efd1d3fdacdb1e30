/// <reference lib="dom" />
/**
 * One agent: its full transcript (model turns with their tool calls, tool results, messages that
 * reached it, claims, merges), its branch and commits. Live: new events of this agent arrive by SSE.
 */
import type { StoredEvent } from '../core/events.js';
import type { AgentRow } from '../view/compact-types.js';
import { getJson, streamUrl } from './api.js';
import { clear, clock, h, ms, usd } from './dom.js';
import { statusBadge } from './run-page.js';

interface AgentReply {
  agent: AgentRow;
  model: string;
  branch: string | null;
  commits: Array<{
    commit: string;
    branch: string;
    files: number | null;
    ts: string;
    mr: number | null;
    landedAs: string | null;
  }>;
  /** The run's status: a finished run's page opens no live stream. */
  runStatus: string;
  stopReason: string | null;
  finishStatus: string | null;
  transcript: StoredEvent[];
}

function pre(text: string, cls = ''): HTMLElement {
  return h(
    'pre',
    { class: cls },
    text.length > 20_000 ? `${text.slice(0, 20_000)}\n… (${text.length - 20_000} more characters)` : text,
  );
}

/** One transcript entry per event (null for events not worth a line). */
export function transcriptEntry(e: StoredEvent): HTMLElement | null {
  const d = e.data as Record<string, unknown>;
  const meta = h('span', { class: 'muted small' }, `#${e.seq} · ${clock(e.ts)}`);
  switch (e.kind) {
    case 'agent.started':
      return h(
        'details',
        { class: 't t-sys' },
        h('summary', {}, 'Started · system prompt and task ', meta),
        pre(String(d.system ?? '')),
        pre(String(d.task ?? '')),
      );
    case 'model.response': {
      const turn = e.data.turn;
      return h(
        'div',
        { class: 't t-model', 'data-kind': e.kind },
        h(
          'div',
          { class: 't-head' },
          h('strong', {}, `Model · step ${String(d.step)}`),
          ' ',
          h(
            'span',
            { class: 'muted small' },
            `${turn.usage.input} in (${turn.usage.cachedInput ?? 0} cached${cacheWrites(turn.usage.cacheWrite)}) · ${turn.usage.output} out · ${usd(turn.costUsd)} · ${ms(Number(d.latencyMs))}`,
          ),
          ' ',
          meta,
        ),
        turn.text ? pre(turn.text, 'prose') : null,
        ...turn.toolCalls.map((c) =>
          h(
            'div',
            { class: 'call' },
            h('span', { class: 'tool-name' }, c.name),
            h('code', {}, c.arguments.length > 400 ? `${c.arguments.slice(0, 400)}…` : c.arguments),
          ),
        ),
      );
    }
    case 'tool.finished': {
      const t = e.data;
      return h(
        'details',
        { class: `t t-tool ${t.isError ? 'err' : ''}`, 'data-kind': e.kind },
        h(
          'summary',
          {},
          h('span', { class: 'tool-name' }, t.name),
          ` ${t.summary} · ${ms(t.durationMs)} `,
          meta,
        ),
        pre(t.content),
      );
    }
    case 'message.delivered': {
      const m = e.data;
      return h(
        'div',
        { class: 't t-msg', 'data-kind': e.kind },
        h('strong', {}, `Message (${m.via})`),
        ' ',
        meta,
        ...m.messages.map((x) => h('div', {}, h('span', { class: 'msg-route' }, `${x.from}: `), x.text)),
      );
    }
    case 'agent.placed': {
      const p = e.data;
      const what = p.takeover ? `Taken over by worker ${p.worker}` : `Placed on worker ${p.worker}`;
      return h(
        'div',
        { class: 't t-other', 'data-kind': e.kind },
        h('strong', {}, what),
        ' ',
        h('span', { class: 'muted small' }, `host ${p.host} · epoch ${p.epoch}`),
        ' ',
        meta,
      );
    }
    case 'tool.started':
    case 'model.retry':
      return null;
    default:
      return h(
        'div',
        { class: 't t-other', 'data-kind': e.kind },
        h('span', { class: 'kindtag' }, e.kind),
        ' ',
        h('code', {}, JSON.stringify(d).slice(0, 300)),
        ' ',
        meta,
      );
  }
}

export function agentPage(
  root: HTMLElement,
  runId: string,
  name: string,
  setLive: (on: boolean) => void,
): () => void {
  const head = h('div', { class: 'run-head' }, h('h1', {}, name));
  const facts = h('div', { class: 'cards' });
  const commits = h('div', {});
  const list = h('div', { class: 'transcript', id: 'transcript' });
  clear(
    root,
    h('p', {}, h('a', { href: `/runs/${encodeURIComponent(runId)}`, 'data-link': true }, `← run ${runId}`)),
    head,
    facts,
    h(
      'div',
      { class: 'grid2 wide-left' },
      h('section', { class: 'panel' }, h('h2', {}, 'Transcript'), list),
      h('section', { class: 'panel' }, h('h2', {}, 'Branch and commits'), commits),
    ),
  );
  let lastSeq = 0;
  let source: EventSource | null = null;
  let closed = false;
  const append = (events: StoredEvent[]) => {
    const frag = document.createDocumentFragment();
    for (const e of events) {
      const el = transcriptEntry(e);
      if (el) frag.append(el);
    }
    list.append(frag);
  };
  void (async () => {
    const r = await getJson<AgentReply>(
      `/api/runs/${encodeURIComponent(runId)}/agents/${encodeURIComponent(name)}`,
    );
    if (closed) return;
    if (!r.ok) {
      clear(root, h('p', { class: 'error' }, r.error));
      return;
    }
    const a = r.value;
    clear(head, h('h1', {}, name), statusBadge(a.finishStatus ?? a.agent.state));
    clear(
      facts,
      ...[
        ['Model', a.model],
        // Fleet runs: the worker running its session now (none in-process, nor before placement).
        ...(a.agent.worker === null ? [] : [['Worker', a.agent.worker]]),
        ['Steps', String(a.agent.steps)],
        ['Tool calls', String(a.agent.toolCalls)],
        ['Cost', a.agent.costUsd === null && a.agent.steps > 0 ? 'unpriced' : usd(a.agent.costUsd)],
        ['Claim', a.agent.claim ?? '–'],
        ['Stop reason', a.stopReason ?? '–'],
      ].map(([k, v]) =>
        h(
          'div',
          { class: 'card' },
          h('div', { class: 'card-label' }, k ?? ''),
          h('div', { class: 'card-value' }, v ?? ''),
        ),
      ),
    );
    clear(
      commits,
      h('p', {}, 'Branch: ', h('code', {}, a.branch ?? '–')),
      a.commits.length === 0
        ? h('p', { class: 'muted' }, 'no commits yet')
        : h(
            'ul',
            { class: 'commits' },
            ...a.commits.map((c) =>
              h(
                'li',
                { 'data-commit': c.commit },
                h('code', {}, c.commit.slice(0, 10)),
                ` ${commitNote(c)} · ${clock(c.ts)}`,
              ),
            ),
          ),
    );
    append(a.transcript);
    lastSeq = a.transcript.at(-1)?.seq ?? 0;
    if (a.runStatus !== 'running') return;
    source = new EventSource(
      streamUrl(
        `/api/runs/${encodeURIComponent(runId)}/stream?agent=${encodeURIComponent(name)}&after=${lastSeq}`,
      ),
    );
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    source.onmessage = (m) => {
      const e = JSON.parse(m.data as string) as StoredEvent;
      if (e.seq > lastSeq) {
        lastSeq = e.seq;
        append([e]);
      }
    };
  })();
  return () => {
    closed = true;
    source?.close();
    setLive(false);
  };
}

function commitNote(c: AgentReply['commits'][number]): string {
  const files = c.files === null ? '' : `${c.files} files`;
  const mr =
    c.mr === null
      ? ''
      : c.landedAs
        ? `merge request #${c.mr}, landed as ${c.landedAs.slice(0, 10)}`
        : `merge request #${c.mr}`;
  return [files, mr].filter(Boolean).join(' · ') || c.branch;
}

/** Prompt-cache writes of a call, when the provider reports any (Anthropic bills them apart). */
function cacheWrites(tokens: number | undefined): string {
  return tokens ? `, ${tokens} cache writes` : '';
}
