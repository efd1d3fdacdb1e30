import { onePositional, parseFlags } from '../args.js';
import { requireRun, withStore } from '../store-access.js';

export const VERIFY_HELP = `colony verify RUN [--json]

Re-checks the run's hash chain: every event's hash over its content and the previous hash, and a
gap-free sequence. Names the first broken event. Exit 0 when intact, 1 when broken.`;

export async function verifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    'verify',
  );
  if (values.help) {
    process.stdout.write(`${VERIFY_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'verify');
  return withStore(async (store) => {
    await requireRun(store, runId);
    const result = await store.log.verify(runId);
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else if (result.ok) process.stdout.write(`run ${runId}: hash chain intact (${result.events} events)\n`);
    else {
      const cut = result.firstBreak;
      process.stdout.write(
        `run ${runId}: hash chain BROKEN at event seq ${cut?.seq} (${cut?.reason.replaceAll('_', ' ')}); ${result.events} events checked\n`,
      );
    }
    return result.ok ? 0 : 1;
  });
}
