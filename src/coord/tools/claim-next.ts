/** `claim_next {}`: take the next ready task of the board, atomically (claims its scope for you). */
import { defineTool, NO_ARGUMENTS } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';
import type { TaskCounts } from '../task-queries.js';
import { formatCounts } from './format.js';

export function createClaimNextTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'claim_next',
    description:
      'Take the next ready task from the task board: the lowest-id task whose predecessors are done and ' +
      'whose scope nobody holds. Atomic: no two agents get the same task. You then hold a claim on its ' +
      'scope; release it with an outcome starting with "done" (or "landed") when it landed, or with the ' +
      'reason otherwise (the task goes back on the board). You may take the next task while a merge ' +
      'request of yours waits (up to 4 open tasks; at 4 you get your oldest back). When nothing is ready ' +
      'you get the counts.',
    schema: NO_ARGUMENTS,
    mutates: false,
    async run() {
      const next = await coord.tasks.claimNext(runId, agent);
      if (!next.ok) return fail(next.error);
      const outcome = next.value;
      if (outcome.status === 'none')
        return ok(`No task is ready for you. ${formatCounts(outcome.counts)} ${advice(outcome.counts)}`);
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
