/**
 * `claim_next {wait?}`: take the next ready task of the board, atomically (claims its scope for you).
 * With `wait`, an agent for whom nothing is ready yet (an empty board being planned, tasks blocked or
 * held by others) waits here instead of asking again turn after turn: a poll is a model call, so
 * 1,000 peers waiting for the plan spent ~1,400 of them (and their tokens) before the first task.
 */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool, type ToolContext } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';
import type { TaskCounts } from '../task-queries.js';
import type { ClaimNextOutcome } from '../tasks.js';
import type { Result } from '../types.js';
import { formatCounts } from './format.js';

/** The longest a `claim_next {wait}` waits before it answers with the counts. */
export const CLAIM_NEXT_MAX_WAIT_MS = 30_000;
/** How often a waiter looks again without a change seen in this process (other processes, leases). */
const RECHECK_MS = 5_000;

const schema = z.object({
  wait: z
    .boolean()
    .optional()
    .describe(
      `When nothing is ready for you yet but may be soon (the board is empty or its open tasks are blocked ` +
        `or held), wait for a task (up to ${CLAIM_NEXT_MAX_WAIT_MS / 1000} s, or until a direct message ` +
        'comes) instead of calling again.',
    ),
});

export function createClaimNextTool(
  coord: Coordination,
  runId: string,
  agent: string,
  options: { maxWaitMs?: number; recheckMs?: number } = {},
): Tool {
  return defineTool({
    name: 'claim_next',
    description:
      'Take the next ready task from the task board: the first task in board order whose predecessors are done and ' +
      'whose scope nobody holds. Atomic: no two agents get the same task. You then hold a claim on its ' +
      'scope; release it with an outcome starting with "done" (or "landed") when it landed, or with the ' +
      'reason otherwise (the task goes back on the board). You may take the next task while a merge ' +
      'request of yours waits (up to 4 open tasks; at 4 you get your oldest back). When nothing is ready ' +
      'you get the counts (wait: true waits for one instead).',
    schema,
    mutates: false,
    async run({ wait }, context) {
      let next = await coord.tasks.claimNext(runId, agent);
      let waited: Waited | null = null;
      if (next.ok && wait && mayBecomeReady(next.value)) {
        const started = performance.now();
        const found = await waitForTask(coord, runId, agent, context, {
          maxWaitMs: options.maxWaitMs ?? CLAIM_NEXT_MAX_WAIT_MS,
          recheckMs: options.recheckMs ?? RECHECK_MS,
        });
        next = found.next ?? next;
        waited = { ms: performance.now() - started, message: found.message };
      }
      if (!next.ok) return fail(next.error);
      const outcome = next.value;
      if (outcome.status === 'none') {
        const how = waited
          ? ` (waited ${Math.round(waited.ms / 1000)} s${waited.message ? '; a direct message came: read it' : ''})`
          : '';
        return ok(
          `No task is ready for you${how}. ${formatCounts(outcome.counts)} ${advice(outcome.counts)}`,
        );
      }
      const { task } = outcome;
      const held = outcome.existing
        ? `You already hold this task (claim ${outcome.claimId}); its lease was renewed.`
        : `You now hold ${task.scope} (claim ${outcome.claimId}; posted as CLAIM #${outcome.entryId}).`;
      const lines = [`Task #${task.id}: ${task.title}`, `Scope: ${task.scope}. ${held}`];
      if (task.detail !== null) lines.push(`Detail:\n${task.detail}`);
      lines.push(
        `When it has landed: release {scope: "${task.scope}", outcome: "done: …"} marks the task done. ` +
          'Any other outcome puts it back on the board for others.',
      );
      return ok(lines.join('\n'));
    },
  });
}

interface Waited {
  ms: number;
  message: boolean;
}

/** Nothing ready, but something may be: the board is empty (being planned) or open tasks wait on others. */
function mayBecomeReady(outcome: ClaimNextOutcome): boolean {
  if (outcome.status !== 'none') return false;
  const c = outcome.counts;
  return c.total === 0 || (c.open > 0 && (c.blocked > 0 || c.claimed > 0));
}

/**
 * Looks again whenever this process changes the board (BoardSignal) and every RECHECK_MS, until a
 * task is granted, nothing more may come, a direct message arrives for the agent (it may be the
 * outcome it needs to release its own task), the time is up or the agent is stopped.
 */
async function waitForTask(
  coord: Coordination,
  runId: string,
  agent: string,
  context: ToolContext,
  { maxWaitMs, recheckMs }: { maxWaitMs: number; recheckMs: number },
): Promise<{ next: Result<ClaimNextOutcome> | null; message: boolean }> {
  const stop = new AbortController();
  const signal = context.signal ? AbortSignal.any([context.signal, stop.signal]) : stop.signal;
  const deadline = performance.now() + maxWaitMs;
  let message = false;
  const messaged = coord.messages
    .waitForMessage(runId, agent, { signal, timeoutMs: maxWaitMs })
    .then((outcome) => {
      if (outcome === 'message') message = true;
    });
  let next: Result<ClaimNextOutcome> | null = null;
  try {
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0 || signal.aborted) return { next, message };
      await Promise.race([coord.board.changed(Math.min(left, recheckMs), signal), messaged]);
      if (message || signal.aborted) return { next, message };
      next = await coord.tasks.claimNext(runId, agent);
      if (!next.ok || !mayBecomeReady(next.value)) return { next, message };
    }
  } finally {
    stop.abort();
  }
}

function advice(c: TaskCounts): string {
  if (c.total === 0) return 'The board is empty: work from the goal with claim, or add tasks with tasks_add.';
  if (c.open === 0) return 'Every task is done: stop taking tasks (finish your own work, then answer).';
  const hints: string[] = [];
  if (c.blocked > 0 || c.claimed > 0) {
    hints.push(
      'Others are still working: wait (message_read, context_read) and call claim_next again later.',
    );
  }
  if (c.failedByYou > 0) {
    hints.push('Tasks you released unfinished are skipped for you; claim one by its scope to retry it.');
  }
  return hints.join(' ');
}
