import { approveFromOutside, rejectFromOutside } from '../../workspace/integration/index.js';
import { parseFlags, UsageError } from '../args.js';
import { CliFailure, requireRun, withStore } from '../store-access.js';

export const APPROVE_HELP = `colony approve RUN MR

Approves merge request MR of a run whose merges wait for approval (colony run --approve-merges, or
--integrators): the run's integration queue lands it (after re-verifying it on the current main if
main moved). Recorded as a merge.approved event by "user"; the first decision on a request counts.
Only the user (this command, the dashboard) or an integrator other than the author can approve.`;

export const REJECT_HELP = `colony reject RUN MR --reason TEXT

Rejects merge request MR of a run whose merges wait for approval: the run's integration queue drops
it and its author gets the reason (a direct message, and the output of merge.rejected, reason
review_rejected). Recorded as a merge.declined event by "user"; the first decision on a request counts.`;

export async function approveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { help: { type: 'boolean', short: 'h' } }, 'approve');
  if (values.help) {
    process.stdout.write(`${APPROVE_HELP}\n`);
    return 0;
  }
  const { runId, mr } = runAndMr(positionals, 'approve', 'colony approve RUN MR');
  return withStore(async (store) => {
    await requireRun(store, runId);
    const result = await approveFromOutside(store.log, runId, mr);
    if (!result.ok) throw new CliFailure(result.error);
    process.stdout.write(`approved merge request ${mr} of run ${runId}\n`);
    return 0;
  });
}

export async function rejectCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { reason: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    'reject',
  );
  if (values.help) {
    process.stdout.write(`${REJECT_HELP}\n`);
    return 0;
  }
  const { runId, mr } = runAndMr(positionals, 'reject', 'colony reject RUN MR --reason TEXT');
  const reason = values.reason?.trim() ?? '';
  if (reason === '') throw new UsageError('reject: --reason TEXT is required (the agent reads it)');
  return withStore(async (store) => {
    await requireRun(store, runId);
    const result = await rejectFromOutside(store.log, runId, mr, reason);
    if (!result.ok) throw new CliFailure(result.error);
    process.stdout.write(`rejected merge request ${mr} of run ${runId}\n`);
    return 0;
  });
}

function runAndMr(positionals: string[], command: string, usage: string): { runId: string; mr: number } {
  const [runId, mrText, extra] = positionals;
  if (!runId || !mrText || extra) throw new UsageError(`${command}: usage: ${usage}`);
  const mr = Number(mrText);
  if (!Number.isInteger(mr) || mr <= 0)
    throw new UsageError(`${command}: MR must be a merge request number, got "${mrText}"`);
  return { runId, mr };
}
