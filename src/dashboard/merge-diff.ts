/// <reference lib="dom" />
/**
 * One merge request's change on the run page: what Colony computed in the hub (`GET
 * /api/runs/ID/merges/MR/diff`: files, patch, verify summary and output), and for a request waiting
 * for approval, Approve and Reject with a reason (the existing approve / reject endpoints; the token).
 * The patch is an agent's text: every piece of it goes in with textContent (`h` appends text nodes),
 * never as markup.
 */
import type { MrDiff } from '../workspace/integration/mr-diff.js';
import { getJson, postJson, token } from './api.js';
import { clear, h, toast } from './dom.js';

/** Lines coloured one element each up to this many; the rest of a longer patch is one text node. */
const MAX_COLOURED_LINES = 20_000;

export interface MergeDiffPanel {
  el: HTMLElement;
  /** Shows merge request `mr` (fetches its diff); `status`: its status in the run's view now. */
  open(mr: number, status: string): void;
  /** The run's view changed: a shown request whose status moved is fetched again. */
  statusOf(mr: number, status: string): void;
}

export function mergeDiff(runId: string): MergeDiffPanel {
  const box = h(
    'div',
    { id: 'mr-diff', class: 'mr-diff' },
    h('p', { class: 'muted' }, 'Choose Diff on a merge request above.'),
  );
  /** The request shown, and its status in the run's view when it was last fetched. */
  let shown: { mr: number; status: string | null } | null = null;

  async function open(mr: number, status?: string): Promise<void> {
    // A request shown already stays on screen until its new state arrives.
    if (shown?.mr !== mr) {
      shown = { mr, status: status ?? null };
      clear(box, h('p', { class: 'muted' }, `Loading merge request ${mr}…`));
    }
    const r = await getJson<MrDiff>(`/api/runs/${encodeURIComponent(runId)}/merges/${mr}/diff`);
    if (shown?.mr !== mr) return;
    if (!r.ok) {
      clear(box, h('p', { class: 'error' }, `Merge request ${mr}: ${r.error}`));
      return;
    }
    render(r.value);
  }

  function render(d: MrDiff): void {
    const reason = h('textarea', {
      id: 'mr-reason',
      rows: 2,
      placeholder: 'Why reject it? Its author reads this.',
    });
    const decide =
      d.status === 'awaiting_approval'
        ? h(
            'div',
            { class: 'mr-decide' },
            reason,
            h(
              'button',
              {
                type: 'button',
                id: 'mr-approve',
                disabled: token() === null,
                title: token() ? 'land this merge request' : 'needs the server token',
                onclick: () => void approve(d.mr),
              },
              'Approve',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                id: 'mr-reject',
                disabled: token() === null,
                title: token() ? 'send it back to its author with the reason' : 'needs the server token',
                onclick: () => void reject(d.mr, reason.value),
              },
              'Reject',
            ),
          )
        : null;
    const verify = d.verify
      ? h(
          'div',
          { class: 'mr-verify' },
          h('h3', {}, d.status === 'rejected' ? 'Rejected' : 'Verify'),
          h('p', { id: 'mr-verify-summary' }, d.verify.summary ?? '(no summary in this log)'),
          d.verify.output ? h('pre', { id: 'mr-verify-output', class: 'mono' }, d.verify.output) : null,
        )
      : null;
    clear(
      box,
      h(
        'div',
        { class: 'mr-head' },
        h('strong', {}, `Merge request #${d.mr}`),
        ' ',
        h('span', { class: `badge m-${d.status}`, id: 'mr-status' }, d.status.replace('_', ' ')),
        ` by ${d.agent} · ${d.branch}`,
      ),
      h('p', { class: 'wrap' }, d.note),
      h('p', { class: 'muted small' }, `${d.basis}: ${d.from.slice(0, 10)}..${d.to.slice(0, 10)}`),
      decide,
      verify,
      h(
        'ul',
        { class: 'mr-files', id: 'mr-files' },
        ...d.files.map((f) =>
          h(
            'li',
            { class: 'mono' },
            f.path,
            h('span', { class: 'muted' }, f.added === null ? ' (binary)' : ` +${f.added} −${f.deleted}`),
          ),
        ),
      ),
      patchView(d.patch),
      d.truncated ? h('p', { class: 'muted' }, 'The patch is longer: cut here.') : null,
    );
  }

  async function approve(mr: number): Promise<void> {
    const r = await postJson(`/api/runs/${encodeURIComponent(runId)}/merges/${mr}/approve`);
    toast(r.ok ? `approved merge request ${mr}` : r.error, r.ok ? 'ok' : 'error');
  }

  async function reject(mr: number, why: string): Promise<void> {
    const reason = why.trim();
    if (reason === '') {
      toast('say why: its author reads the reason', 'error');
      return;
    }
    const r = await postJson(`/api/runs/${encodeURIComponent(runId)}/merges/${mr}/reject`, { reason });
    toast(r.ok ? `rejected merge request ${mr}` : r.error, r.ok ? 'ok' : 'error');
  }

  return {
    el: box,
    open: (mr, status) => void open(mr, status),
    statusOf(mr, status) {
      if (!shown || shown.mr !== mr || shown.status === status) return;
      shown.status = status;
      void open(mr);
    },
  };
}

/** The patch as text: one element per line (coloured by its first character), text nodes only. */
function patchView(patch: string): HTMLElement {
  const pre = h('pre', { class: 'patch mono', id: 'mr-patch' });
  if (patch === '') {
    pre.textContent = '(no changes)';
    return pre;
  }
  const lines = patch.split('\n');
  const coloured = lines.slice(0, MAX_COLOURED_LINES);
  for (const line of coloured) {
    const kind =
      line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')
        ? 'p-file'
        : line.startsWith('@@')
          ? 'p-hunk'
          : line.startsWith('+')
            ? 'p-add'
            : line.startsWith('-')
              ? 'p-del'
              : '';
    pre.append(h('span', { class: kind }, `${line}\n`));
  }
  if (lines.length > coloured.length) pre.append(lines.slice(coloured.length).join('\n'));
  return pre;
}
