/// <reference lib="dom" />
/**
 * A run's task board on its page: every task in board order with its predecessors and state (ready,
 * blocked by which tasks, held by whom, busy scope, done by whom), and — with the server token — a
 * form to add a task, Edit (title, scope, detail) and ↑ / ↓ to move an open task (claim_next takes
 * the first ready task in this order). Reads `GET /api/runs/ID/tasks` when the run's log grew (the
 * run page calls `refresh`), writes through `POST /tasks` and `PATCH /tasks/N`. Text only (textContent).
 */
import type { BoardRow } from '../coord/task-board.js';
import { type ApiResult, getJson, patchJson, postJson, token } from './api.js';
import { clear, h, toast } from './dom.js';

interface Board {
  tasks: BoardRow[];
  total: number;
}

export interface TaskBoardPanel {
  el: HTMLElement;
  /** The run's log grew (`lastSeq`): refetch the board (at most one request in flight). */
  refresh(lastSeq: number): void;
}

export function taskBoard(runId: string): TaskBoardPanel {
  const base = `/api/runs/${encodeURIComponent(runId)}/tasks`;
  const summary = h('p', { class: 'muted small', id: 'board-summary' });
  const list = h('div', { class: 'table-scroll', id: 'task-board' });
  const title = h('input', {
    id: 'task-title',
    type: 'text',
    placeholder: 'New task: what to do',
    autocomplete: 'off',
  });
  const scope = h('input', {
    id: 'task-scope',
    type: 'text',
    placeholder: 'scope (src/parser/), optional',
    autocomplete: 'off',
  });
  const after = h('input', {
    id: 'task-after',
    type: 'text',
    placeholder: 'after (ids: 1, 3)',
    autocomplete: 'off',
  });
  const detail = h('textarea', {
    id: 'task-detail',
    rows: 2,
    placeholder: 'detail for whoever takes it (optional)',
  });
  const add = h('button', { type: 'submit', id: 'task-add' }, 'Add task');
  const form = h('form', { class: 'task-form', id: 'task-form' }, title, scope, after, detail, add);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });
  let board: Board | null = null;
  let editing: number | null = null;
  let seenSeq = -1;
  let inflight = false;
  let again = false;

  async function submit(): Promise<void> {
    const ids = after.value
      .split(/[\s,]+/)
      .filter((s) => s !== '')
      .map((s) => (/^#?\d+$/.test(s) ? Number(s.replace('#', '')) : s));
    const r = await postJson<{ tasks: { id: number; existing: boolean }[] }>(base, {
      title: title.value,
      scope: scope.value,
      detail: detail.value,
      after: ids,
    });
    if (!r.ok) return fail(r);
    const t = r.value.tasks[0];
    toast(t?.existing ? `task #${t.id} was already on the board` : `added task #${t?.id}`);
    title.value = scope.value = after.value = detail.value = '';
    void load();
  }

  async function patch(id: number, body: Record<string, unknown>, done: string): Promise<void> {
    const r = await patchJson<{ message: string }>(`${base}/${id}`, body);
    if (!r.ok) return fail(r);
    toast(done);
    editing = null;
    void load();
  }

  function fail(r: Extract<ApiResult<unknown>, { ok: false }>): void {
    toast(r.status === 401 ? 'needs the server token: open the URL colony serve printed' : r.error, 'error');
  }

  async function load(): Promise<void> {
    if (inflight) {
      again = true;
      return;
    }
    inflight = true;
    const r = await getJson<Board>(base);
    inflight = false;
    if (r.ok) {
      board = r.value;
      render();
    }
    if (again) {
      again = false;
      void load();
    }
  }

  function render(): void {
    if (!board) return;
    const open = board.tasks.filter((t) => t.state !== 'done' && t.state !== 'dropped');
    const counts = new Map<string, number>();
    for (const t of board.tasks) counts.set(t.state, (counts.get(t.state) ?? 0) + 1);
    summary.textContent =
      board.total === 0
        ? 'The board is empty. Tasks added here are what peers take with claim_next (first ready one first).'
        : `${board.total} task${board.total === 1 ? '' : 's'}: ${[...counts].map(([s, n]) => `${n} ${s}`).join(' · ')}. Peers take the first ready task in this order.`;
    if (board.tasks.length === 0) {
      clear(list);
      return;
    }
    clear(
      list,
      h(
        'table',
        { class: 'tbl board' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, '#'),
            h('th', {}, 'task'),
            h('th', {}, 'scope'),
            h('th', {}, 'after'),
            h('th', {}, 'state'),
            h('th', {}, ''),
          ),
        ),
        h('tbody', {}, ...board.tasks.map((t) => (editing === t.id ? editRow(t) : row(t, open)))),
      ),
    );
  }

  function stateText(t: BoardRow): string {
    if (t.state === 'held') return `held by ${t.agent ?? '?'}`;
    if (t.state === 'done') return t.agent ? `done by ${t.agent}` : 'done';
    if (t.state === 'blocked') return `blocked by ${t.waitingFor.map((id) => `#${id}`).join(', ')}`;
    if (t.state === 'busy') return 'ready, scope busy';
    return t.state;
  }

  function row(t: BoardRow, open: BoardRow[]): HTMLElement {
    const i = open.findIndex((o) => o.id === t.id);
    const prev = i > 0 ? open[i - 1] : undefined;
    const next = i >= 0 && i < open.length - 1 ? open[i + 1] : undefined;
    const noToken = token() === null;
    const btn = (label: string, attrs: Record<string, string | number | boolean>, on: () => void) =>
      h('button', { class: 'small-btn', type: 'button', disabled: noToken, ...attrs, onclick: on }, label);
    return h(
      'tr',
      { class: `task t-${t.state}`, 'data-task': t.id, 'data-state': t.state, 'data-agent': t.agent },
      h('td', {}, `#${t.id}`),
      h(
        'td',
        { class: 'wrap', title: t.detail ?? '' },
        t.title,
        t.detail ? h('span', { class: 'muted' }, ' (+detail)') : '',
      ),
      h('td', { class: 'mono' }, t.scope),
      h('td', {}, t.after.map((a) => `#${a}`).join(', ')),
      h('td', { class: `task-state st-${t.state}` }, stateText(t)),
      h(
        'td',
        {},
        ...(i < 0
          ? []
          : [
              btn('↑', { 'data-up': t.id, title: 'take it earlier', disabled: noToken || !prev }, () => {
                if (prev) void patch(t.id, { before: prev.id }, `moved #${t.id} before #${prev.id}`);
              }),
              btn('↓', { 'data-down': t.id, title: 'take it later', disabled: noToken || !next }, () => {
                if (next) void patch(t.id, { after: next.id }, `moved #${t.id} after #${next.id}`);
              }),
              btn(
                'Edit',
                {
                  'data-edit': t.id,
                  title:
                    t.state === 'held'
                      ? 'held: the holder works from what it read'
                      : 'edit title, scope, detail',
                  disabled: noToken || t.state === 'held',
                },
                () => {
                  editing = t.id;
                  render();
                },
              ),
            ]),
      ),
    );
  }

  function editRow(t: BoardRow): HTMLElement {
    const et = h('input', { type: 'text', 'data-edit-title': t.id, value: t.title });
    const es = h('input', { type: 'text', 'data-edit-scope': t.id, value: t.scope });
    const ed = h('textarea', { rows: 2, 'data-edit-detail': t.id });
    ed.value = t.detail ?? '';
    return h(
      'tr',
      { class: 'task editing', 'data-task': t.id },
      h('td', {}, `#${t.id}`),
      h('td', { colspan: 3 }, h('div', { class: 'task-edit' }, et, es, ed)),
      h('td', {}, stateText(t)),
      h(
        'td',
        {},
        h(
          'button',
          {
            class: 'small-btn',
            type: 'button',
            'data-save': t.id,
            onclick: () =>
              void patch(t.id, { title: et.value, scope: es.value, detail: ed.value }, `saved task #${t.id}`),
          },
          'Save',
        ),
        h(
          'button',
          {
            class: 'small-btn ghost',
            type: 'button',
            onclick: () => {
              editing = null;
              render();
            },
          },
          'Cancel',
        ),
      ),
    );
  }

  if (token() === null) {
    for (const el of [title, scope, after, detail, add]) el.setAttribute('disabled', '');
    add.title = 'needs the server token';
  }
  return {
    el: h('div', { class: 'board-box' }, summary, list, form),
    refresh(lastSeq) {
      if (lastSeq === seenSeq) return;
      seenSeq = lastSeq;
      void load();
    },
  };
}
