/**
 * The occurrences of a run (occurrences.ts) that still wait for a person: the same finder, plus what
 * settles each since. A merge awaiting approval is settled once it is decided (approved or declined,
 * unless the log says that decision did not count) or has landed or been rejected; a stalled agent
 * once it shows any activity again (a model response or error, a tool call, its end); a budget
 * warning once that budget's limit is hit (the limit hit is the item then). The run's end settles
 * approvals, stalls and budget warnings: nothing waits in a finished run. Limit hits stay.
 */
import type { StoredEvent } from '../core/events.js';
import type { Occurrence } from './kinds.js';
import { createOccurrenceFinder, type OccurrenceWatch, WATCHED_KINDS } from './occurrences.js';

/** The kinds that settle an occurrence, beside the finder's own. */
const SETTLING_KINDS = [
  'merge.approved',
  'merge.declined',
  'merge.approval_ignored',
  'merge.landed',
  'merge.rejected',
  'model.error',
  'tool.started',
  'agent.finished',
] as const;

/** Every kind `openOccurrences` reads (a log read may ask for these only). */
export const OPEN_OCCURRENCE_KINDS = [...new Set([...WATCHED_KINDS, ...SETTLING_KINDS])];

/** Activity of an agent: a stalled agent that shows one of these has resumed. */
const ACTIVITY = new Set(['model.response', 'model.error', 'tool.started', 'agent.finished']);

export interface OpenOccurrences {
  /** Folds the run's next event (in log order). */
  apply(event: StoredEvent): void;
  /** The occurrences not settled so far, oldest first. */
  open(): Occurrence[];
}

/** An incremental fold of a run's log into its open occurrences (`run_finished` is never one). */
export function createOpenOccurrences(watch: OccurrenceWatch): OpenOccurrences {
  const finder = createOccurrenceFinder(watch);
  const open = new Map<string, Occurrence>();
  /** mr → the key of its approval; the decision that settled it (an ignored one reopens it). */
  const approvals = new Map<number, string>();
  const decisions = new Map<number, { seq: number; occurrence: Occurrence }>();
  const settle = (key: string) => open.delete(key);
  const apply = (event: StoredEvent): void => {
    if (event.agent !== null && ACTIVITY.has(event.kind))
      for (const [key, o] of open) if (o.kind === 'agent_stalled' && o.agent === event.agent) settle(key);
    switch (event.kind) {
      case 'merge.approved':
      case 'merge.declined': {
        const key = approvals.get(event.data.mr);
        const o = key === undefined ? undefined : open.get(key);
        if (key !== undefined && o) {
          decisions.set(event.data.mr, { seq: event.seq, occurrence: o });
          settle(key);
        }
        break;
      }
      case 'merge.approval_ignored': {
        const decision = decisions.get(event.data.mr);
        if (decision && decision.seq === event.data.seq)
          open.set(decision.occurrence.key, decision.occurrence);
        break;
      }
      case 'merge.landed':
      case 'merge.rejected': {
        const key = approvals.get(event.data.mr);
        if (key !== undefined) settle(key);
        decisions.delete(event.data.mr);
        break;
      }
      case 'limit.hit':
        if (event.data.limit === 'budget_usd') settle('budget:usd');
        if (event.data.limit === 'budget_tokens') settle('budget:tokens');
        break;
      case 'run.finished':
        for (const [key, o] of open)
          if (o.kind === 'approval_needed' || o.kind === 'agent_stalled' || o.kind === 'budget_warning')
            settle(key);
        break;
      default:
        break;
    }
    for (const o of finder.apply(event)) {
      if (o.kind === 'run_finished') continue;
      open.set(o.key, o);
      if (o.kind === 'approval_needed' && typeof o.details.mr === 'number')
        approvals.set(o.details.mr, o.key);
    }
  };
  return { apply, open: () => [...open.values()].sort((a, b) => a.seq - b.seq) };
}

/** The occurrences of `events` (in log order) not settled by a later event, oldest first. */
export function openOccurrences(events: readonly StoredEvent[], watch: OccurrenceWatch): Occurrence[] {
  const fold = createOpenOccurrences(watch);
  for (const event of events) fold.apply(event);
  return fold.open();
}
