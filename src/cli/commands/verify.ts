import { type AnchoredCheck, checkRunAnchors } from '../../store/anchor/index.js';
import type { VerifyResult } from '../../store/index.js';
import { onePositional, parseFlags } from '../args.js';
import { requireRun, withStore } from '../store-access.js';

export const VERIFY_HELP = `colony verify RUN [--anchor FILE | --no-anchor] [--public-key FILE] [--json]

Re-checks the run's hash chain: every event's hash over its content and the previous hash, and a
gap-free sequence. Names the first broken event.

Then checks the chain against the run's signed anchors (colony anchor; one is written when a run
ends): $COLONY_HOME/anchors/<run-id>.jsonl when present, or --anchor FILE. Every anchor's signature
is checked with the audit key ($COLONY_HOME/audit-key, or --public-key FILE); the chain, recomputed
by Colony, must still hold the anchored hash at each anchored seq. A superuser who rewrote events
and the chain's head is caught here: the first event that differs is named. --no-anchor checks only
the chain itself.

Exit 0 when intact (and matching every anchor), 1 when broken, different or the anchor is refused.`;

export async function verifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      anchor: { type: 'string' },
      'no-anchor': { type: 'boolean' },
      'public-key': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
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
    if (values['no-anchor']) {
      if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else process.stdout.write(`${chainLine(result)}\n`);
      return result.ok ? 0 : 1;
    }
    const anchored = await checkRunAnchors(store, runId, {
      ...(values.anchor ? { anchorPath: values.anchor } : {}),
      ...(values['public-key'] ? { publicKeyPath: values['public-key'] } : {}),
    });
    const anchorOk = anchored.ok && (!anchored.value.checked || anchorMatches(anchored.value));
    if (values.json) {
      const anchor = anchored.ok ? anchored.value : { error: anchored.error };
      process.stdout.write(
        `${JSON.stringify({ ...result, ok: result.ok && anchorOk, chainOk: result.ok, anchor })}\n`,
      );
    } else {
      process.stdout.write(`${chainLine(result)}\n`);
      const lines = anchored.ok
        ? anchorLines(runId, anchored.value)
        : [`run ${runId}: anchor REFUSED: ${anchored.error}`];
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return result.ok && anchorOk ? 0 : 1;
  });
}

function chainLine(result: VerifyResult): string {
  if (result.ok) return `run ${result.runId}: hash chain intact (${result.events} events)`;
  const cut = result.firstBreak;
  return `run ${result.runId}: hash chain BROKEN at event seq ${cut?.seq} (${cut?.reason.replaceAll('_', ' ')}); ${result.events} events checked`;
}

function anchorMatches(check: Extract<AnchoredCheck, { checked: true }>): boolean {
  return check.verdict.ok && check.inconsistency === null;
}

function anchorLines(runId: string, check: AnchoredCheck): string[] {
  if (!check.checked)
    return [
      `run ${runId}: no anchor at ${check.path}; only the chain's own consistency was checked (colony anchor ${runId} writes one)`,
    ];
  const { verdict, inconsistency } = check;
  const lines: string[] = [];
  const latest = `seq ${verdict.latest.lastSeq}, anchored ${verdict.latest.anchoredAt}`;
  if (verdict.ok)
    lines.push(
      `run ${runId}: matches its anchor (${latest}; ${verdict.anchors} anchor(s) of ${check.path}, key ${check.keyId})`,
    );
  else if (verdict.firstDifference) {
    const { seq, kind } = verdict.firstDifference;
    const what =
      kind === null ? `event seq ${seq} is missing` : `the first event that differs is seq ${seq} (${kind})`;
    lines.push(
      `run ${runId}: DIFFERS from its anchor (${latest}): ${what}. Events were rewritten in the database after they were anchored; what the run logged from seq ${seq} on can no longer be trusted.`,
    );
  } else if (verdict.range) {
    const { after, upTo } = verdict.range;
    lines.push(
      `run ${runId}: DIFFERS from its anchor (${latest}): the first event that differs is between seq ${after + 1} and ${upTo} (the anchors carry no per-event trail). Events were rewritten in the database after they were anchored.`,
    );
  }
  if (inconsistency)
    lines.push(
      `run ${runId}: event seq ${inconsistency.seq} (${inconsistency.kind}): ${inconsistency.reason} (recomputed by Colony, not by the database)`,
    );
  if (verdict.uncovered > 0)
    lines.push(
      `run ${runId}: ${verdict.uncovered} event(s) after seq ${verdict.latest.lastSeq} are not covered by an anchor (colony anchor ${runId} covers them)`,
    );
  return lines;
}
