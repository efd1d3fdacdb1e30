/** The integration queue: merge requests and their outcome. */
import type { Applied, Handlers } from '../run-state.js';
import { act, decide, MAX_OUTPUT } from './helpers.js';

function parkOrApprove({ state, event }: Applied<'merge.awaiting_approval' | 'merge.approved'>): void {
  const merge = state.merges.get(event.data.mr);
  if (merge && merge.decidedMs === null)
    merge.status = event.kind === 'merge.approved' ? 'approved' : 'awaiting_approval';
}

/** A decision the queue did not count (merge.approval_ignored): an approval shown for it is taken back. */
function ignoredDecision({ state, event }: Applied<'merge.approval_ignored'>): void {
  const merge = state.merges.get(event.data.mr);
  if (merge && merge.decidedMs === null && merge.status === 'approved') merge.status = 'awaiting_approval';
}

export const integrationHandlers: Handlers = {
  'merge.requested': ({ state, event, at, agent, name }) => {
    const d = event.data;
    state.merges.set(d.mr, {
      mr: d.mr,
      agent: name,
      branch: d.branch,
      note: d.note,
      status: 'requested',
      requestedMs: at,
      decidedMs: null,
      reason: null,
      files: [],
      commit: d.commit,
      batch: [],
      output: null,
    });
    if (agent) {
      act(agent, `merge request #${d.mr}`, at);
      // A peer's work reaches main only through merge requests: their commits are its commits.
      agent.branch ??= d.branch;
      const known = agent.commits.find((c) => c.commit === d.commit);
      if (known) known.mr = d.mr;
      else
        agent.commits.push({
          commit: d.commit,
          branch: d.branch,
          files: null,
          tMs: at,
          mr: d.mr,
          landedAs: null,
        });
    }
  },
  'merge.awaiting_approval': parkOrApprove,
  'merge.approved': parkOrApprove,
  'merge.approval_ignored': ignoredDecision,
  'merge.landed': ({ state, event, at }) => {
    const d = event.data;
    const merge = decide(state, d.mr, 'landed', at);
    if (merge) {
      merge.commit = d.commit;
      merge.batch = d.batch;
      const commit = merge.agent
        ? state.agents.get(merge.agent)?.commits.find((c) => c.mr === d.mr)
        : undefined;
      if (commit) commit.landedAs = d.commit;
    }
  },
  'merge.rejected': ({ state, event, at }) => {
    const d = event.data;
    const merge = decide(state, d.mr, 'rejected', at);
    if (merge) {
      merge.reason = d.reason;
      merge.files = d.files;
      merge.output = d.output.slice(0, MAX_OUTPUT);
    }
  },
};
