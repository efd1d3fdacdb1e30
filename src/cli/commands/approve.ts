import { approveFromOutside } from '../../workspace/integration/index.js';
import { parseFlags, UsageError } from '../args.js';
import { CliFailure, requireRun, withStore } from '../store-access.js';

export const APPROVE_HELP = `colony approve RUN MR

Approves merge request MR of a run that integrates with manual approval: the run's integration queue
lands it (after re-verifying it on the current main if main moved). Recorded as a merge.approved event.`;

export async function approveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { help: { type: 'boolean', short: 'h' } }, 'approve');
  if (values.help) {
    process.stdout.write(`${APPROVE_HELP}\n`);
    return 0;
  }
  const [runId, mrText, extra] = positionals;
  if (!runId || !mrText || extra) throw new UsageError('approve: usage: colony approve RUN MR');
  const mr = Number(mrText);
  if (!Number.isInteger(mr) || mr <= 0)
    throw new UsageError(`approve: MR must be a merge request number, got "${mrText}"`);
  return withStore(async (store) => {
    await requireRun(store, runId);
    const result = await approveFromOutside(store.log, runId, mr, 'user');
    if (!result.ok) throw new CliFailure(result.error);
    process.stdout.write(`approved merge request ${mr} of run ${runId}\n`);
    return 0;
  });
}
