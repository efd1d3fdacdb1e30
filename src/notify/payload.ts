/**
 * What a notification says (docs/notify.md): the webhook's JSON body and the desktop's title and
 * text, built from an occurrence. Never sent: keys, prompts, model or tool text, file contents, the
 * goal, paths on this machine; the only agent-written text is an agent's name and a merge request's
 * note, capped.
 */
import type { NotifyKind, Occurrence } from './kinds.js';

export interface NotifyPayload {
  /** The payload's format (raised on an incompatible change). */
  version: 1;
  kind: NotifyKind;
  runId: string;
  occurrence: string;
  /** The run log's event that revealed it (order notifications by it). */
  seq: number;
  at: string;
  agent: string | null;
  /** One line for a person. */
  title: string;
  text: string;
  details: Occurrence['details'];
}

export function notifyPayload(runId: string, occurrence: Occurrence): NotifyPayload {
  const { title, text } = wording(runId, occurrence);
  return {
    version: 1,
    kind: occurrence.kind,
    runId,
    occurrence: occurrence.key,
    seq: occurrence.seq,
    at: occurrence.at,
    agent: occurrence.agent,
    title,
    text,
    details: occurrence.details,
  };
}

function wording(runId: string, o: Occurrence): { title: string; text: string } {
  const d = o.details;
  const who = o.agent ?? 'the run';
  switch (o.kind) {
    case 'approval_needed':
      return {
        title: `Colony ${runId}: a merge waits for you`,
        text: `merge request ${d.mr} by ${who}${d.note ? ` (${d.note})` : ''} passed its check; ${d.approve}`,
      };
    case 'agent_stalled':
      return {
        title: `Colony ${runId}: ${who} stalled`,
        text: `${who} made no progress for ${Math.round(Number(d.idleMs) / 1000)} s; its claims lapse for others`,
      };
    case 'budget_warning':
      return {
        title: `Colony ${runId}: ${Math.floor(Number(d.share) * 100)}% of the ${d.budget} budget spent`,
        text: `${d.used} of ${d.limit} ${d.budget === 'usd' ? 'USD' : 'tokens'} spent`,
      };
    case 'limit_hit':
      return {
        title: `Colony ${runId}: limit ${d.limit} hit`,
        text: `${who} hit ${d.limit} (limit ${d.value}, used ${d.used})`,
      };
    case 'run_finished':
      return {
        title: `Colony ${runId}: ${d.status}`,
        text: `${d.reason}${d.resultBranch ? `; result on ${d.resultBranch}` : ''}`,
      };
  }
}
