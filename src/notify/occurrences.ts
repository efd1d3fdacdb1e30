/**
 * The moments of a run worth a notification, found by folding its log in order (pure): a merge
 * parked for a person, a stalled agent, a budget past 80%, a limit hit, the run's end. The log is
 * also the notifier's memory: `notify.sent` / `notify.failed` mark an occurrence done for a target,
 * so a resumed run (its log read again from the start) does not notify it twice.
 */
import { totalTokens } from '../agent/budget.js';
import type { StoredEvent } from '../core/events.js';
import type { NotifyKind, Occurrence } from './kinds.js';

export interface OccurrenceWatch {
  budgetUsd?: number;
  budgetTokens?: number;
  /** Merges wait for a person (`--approve-merges`); with integrators an agent decides, no one is told. */
  approvals: boolean;
}

/** A budget is worth a warning once this share of it is spent. */
export const BUDGET_WARNING_SHARE = 0.8;
/** Limits that slow a run down rather than stop anything: not notified. */
const QUIET_LIMITS = new Set(['concurrency', 'model_concurrency']);
/** Limits of the whole run: notified once, however many agents they stop. */
const RUN_LIMITS = new Set(['budget_usd', 'budget_tokens', 'runs_per_server']);
/** An agent-written note is cut to this many characters. */
const NOTE_CHARS = 200;
/** A run's end reason (Colony's words, which may quote an agent's error) is cut to this many. */
const REASON_CHARS = 300;

export interface OccurrenceFinder {
  /** The occurrences this event reveals (each key at most once). */
  apply(event: StoredEvent): Occurrence[];
  /** Whether the log already says this occurrence was notified (or given up) for `target`. */
  done(target: string, key: string): boolean;
}

export function createOccurrenceFinder(watch: OccurrenceWatch): OccurrenceFinder {
  const seen = new Set<string>();
  const done = new Set<string>();
  const notes = new Map<number, string>();
  let usd = 0;
  let tokens = 0;
  const found = (
    event: StoredEvent,
    kind: NotifyKind,
    key: string,
    details: Occurrence['details'],
  ): Occurrence[] => {
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ kind, key, seq: event.seq, at: event.ts, agent: event.agent, details }];
  };
  const budgetWarnings = (event: StoredEvent): Occurrence[] => {
    const out: Occurrence[] = [];
    const budgets = [
      ['usd', watch.budgetUsd, usd],
      ['tokens', watch.budgetTokens, tokens],
    ] as const;
    for (const [budget, limit, used] of budgets)
      if (limit !== undefined && used >= BUDGET_WARNING_SHARE * limit)
        out.push(
          ...found(event, 'budget_warning', `budget:${budget}`, {
            budget,
            limit,
            used: budget === 'usd' ? Math.round(used * 1e6) / 1e6 : used,
            share: Math.round((used / limit) * 1000) / 1000,
          }),
        );
    return out;
  };
  return {
    done: (target, key) => done.has(`${target}\n${key}`),
    apply(event) {
      switch (event.kind) {
        case 'notify.sent':
        case 'notify.failed':
          done.add(`${event.data.target}\n${event.data.occurrence}`);
          return [];
        case 'model.response':
          tokens += totalTokens(event.data.turn.usage);
          usd += event.data.turn.costUsd ?? 0;
          return budgetWarnings(event);
        case 'merge.requested':
          notes.set(event.data.mr, event.data.note.slice(0, NOTE_CHARS));
          return [];
        case 'merge.awaiting_approval': {
          if (!watch.approvals) return [];
          const { mr, commit } = event.data;
          return found(event, 'approval_needed', `approval:mr-${mr}`, {
            mr,
            commit,
            note: notes.get(mr) ?? null,
            approve: `colony approve ${event.runId} ${mr}`,
            reject: `colony reject ${event.runId} ${mr} --reason TEXT`,
          });
        }
        case 'agent.stalled':
          return found(event, 'agent_stalled', `stalled:${event.agent}:${event.seq}`, {
            idleMs: event.data.idleMs,
          });
        case 'limit.hit': {
          const { limit, value, used } = event.data;
          if (QUIET_LIMITS.has(limit)) return [];
          const key = RUN_LIMITS.has(limit) ? `limit:${limit}` : `limit:${limit}:${event.seq}`;
          return found(event, 'limit_hit', key, { limit, value, used });
        }
        case 'run.finished':
          return found(event, 'run_finished', 'run_finished', {
            status: event.data.status,
            reason: event.data.reason.slice(0, REASON_CHARS),
            resultBranch: event.data.resultBranch,
          });
        default:
          return [];
      }
    },
  };
}

/** The event kinds the finder reads (the notifier's log reads ask for these only). */
export const WATCHED_KINDS = [
  'notify.sent',
  'notify.failed',
  'model.response',
  'merge.requested',
  'merge.awaiting_approval',
  'agent.stalled',
  'limit.hit',
  'run.finished',
] as const;
