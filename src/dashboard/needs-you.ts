/// <reference lib="dom" />
/**
 * "Needs you": what waits for a person across recent runs (`GET /api/needs-you`), each linking to
 * its run and agent. Agent names and notes are agent-written: text nodes only.
 */
import type { NeedsYouItem } from '../server/needs-you.js';
import { ago, h } from './dom.js';

const LABELS: Record<NeedsYouItem['kind'], string> = {
  approval_needed: 'approval waiting',
  agent_stalled: 'agent stalled',
  budget_warning: 'budget past 80%',
  limit_hit: 'limit hit',
  verify_failed: 'verify failed',
};

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** Colony's words for an item (numbers and commands; an agent's note is quoted as given). */
function what(item: NeedsYouItem): string {
  const d = item.details;
  switch (item.kind) {
    case 'approval_needed':
      return `merge request #${str(d.mr)} waits for approval${d.note ? `: “${str(d.note)}”` : ''}`;
    case 'agent_stalled':
      return `no progress for ${Math.round(Number(d.idleMs) / 1000)}s`;
    case 'budget_warning':
      return `${str(d.budget)} budget: ${str(d.used)} of ${str(d.limit)} used`;
    case 'limit_hit':
      return `${str(d.limit)}: ${str(d.used)} of ${str(d.value)}`;
    case 'verify_failed':
      return `${str(d.command)} exited ${str(d.exitCode)}`;
  }
}

export function needsYouRows(items: readonly NeedsYouItem[]): HTMLElement[] {
  return items.map((item) => {
    const run = `/runs/${encodeURIComponent(item.runId)}`;
    return h(
      'li',
      {
        class: `needs k-${item.kind}`,
        'data-needs': item.kind,
        'data-run': item.runId,
        'data-agent': item.agent,
      },
      h('span', { class: 'badge needs-kind' }, LABELS[item.kind]),
      h('a', { href: run, 'data-link': true, class: 'mono' }, item.runId),
      item.agent === null
        ? null
        : h(
            'a',
            {
              href: `${run}/agents/${encodeURIComponent(item.agent)}`,
              'data-link': true,
              class: 'needs-agent',
            },
            item.agent,
          ),
      h('span', { class: 'needs-what', title: item.goal }, what(item)),
      h('span', { class: 'muted small' }, ago(item.at)),
    );
  });
}
