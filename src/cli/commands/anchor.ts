import { anchorRun } from '../../store/anchor/index.js';
import { onePositional, parseFlags } from '../args.js';
import { CliFailure, requireRun, withStore } from '../store-access.js';

export const ANCHOR_HELP = `colony anchor RUN [--out FILE] [--json]

Signs the run's chain head (run id, last seq, hash, time, and the first 8 hex digits of every
event's hash) with the audit key kept outside the database, $COLONY_HOME/audit-key (Ed25519,
created on first use with mode 0600; COLONY_AUDIT_KEY names another file), and appends it as one
line to $COLONY_HOME/anchors/<run-id>.jsonl (or FILE). Every run is anchored when it ends.
colony verify RUN then checks the chain in the database against the anchors (docs/audit.md).`;

export async function anchorCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { out: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    'anchor',
  );
  if (values.help) {
    process.stdout.write(`${ANCHOR_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'anchor');
  return withStore(async (store) => {
    await requireRun(store, runId);
    const anchored = await anchorRun(store, runId, values.out ? { out: values.out } : {});
    if (!anchored.ok) throw new CliFailure(anchored.error);
    const { path, keyPath, record } = anchored.value;
    if (values.json) {
      const { trail: _trail, ...shown } = record;
      process.stdout.write(`${JSON.stringify({ ...shown, path, keyPath })}\n`);
    } else
      process.stdout.write(
        `run ${runId}: anchored seq ${record.lastSeq} (hash ${record.hash.slice(0, 16)}…) in ${path}, signed with key ${record.keyId} (${keyPath})\n`,
      );
    return 0;
  });
}
