import type { EventLog } from '../../store/types.js';
import type { AcceptCheckOptions, CheckResult } from './accept-check.js';
import { checkMain } from './accept-check.js';
import { landedOwnership, ownersOf } from './accept-owners.js';

export const DEFAULT_ACCEPT_ROUNDS = 2;
/** The lead step of acceptance tasks: no lead turn has it, so they stay out of the lead's turns. */
export const ACCEPT_LEAD_STEP = 0;
const OUTPUT_TAIL = 4_000;

export interface AcceptanceOptions extends AcceptCheckOptions {
  runId: string;
  log: EventLog;
  rounds: number;
  /** Gives `agent` a task (the team's assign, keyed by callId) and waits for its result. */
  assign(agent: string, prompt: string, callId: string): Promise<unknown>;
  emitFinished(data: {
    round: number;
    passed: boolean;
    failures: Array<{ owner: string | null; files: string[] }>;
  }): Promise<unknown>;
}

export interface AcceptanceResult {
  passed: boolean;
  round: number;
  reason: string;
}

export async function runAcceptance(o: AcceptanceOptions): Promise<AcceptanceResult> {
  const logged = await o.log.read(o.runId, {
    kinds: ['acceptance.finished'],
  });
  for (let round = 0; ; round++) {
    const known = logged.find((e) => e.data.round === round)?.data;
    let checks: CheckResult[] | null = null;
    let passed: boolean;
    if (known) passed = known.passed;
    else {
      const checked = await checkMain(o);
      if (!checked.ok) {
        await o.emitFinished({ round, passed: false, failures: [] });
        return { passed: false, round, reason: `acceptance check could not run: ${checked.error}` };
      }
      checks = checked.checks;
      passed = checks.every((c) => c.passed);
    }
    const ownership = await landedOwnership(o.log, o.runId, o.hubPath);
    if (!known) {
      const failures = (checks ?? []).filter((c) => !c.passed).flatMap((c) => ownersOf(c.output, ownership));
      await o.emitFinished({ round, passed, failures: merge(failures) });
    }
    if (passed) return { passed, round, reason: `acceptance passed (after ${round} fix round(s))` };
    if (round >= o.rounds) return { passed, round, reason: `acceptance failed after ${round} fix round(s)` };
    // A resumed run whose failures are only summarised in the log checks again for their output.
    if (!checks) {
      const checked = await checkMain(o);
      if (!checked.ok)
        return { passed: false, round, reason: `acceptance check could not run: ${checked.error}` };
      checks = checked.checks;
      if (checks.every((c) => c.passed)) continue;
    }
    const routes = routesFor(checks, ownership, round + 1);
    if (routes.size === 0)
      return { passed: false, round, reason: 'acceptance failed and no subagent owns the failing files' };
    await Promise.all(
      [...routes].map(([owner, prompt]) => o.assign(owner, prompt, `accept-${round + 1}-${owner}`)),
    );
  }
}

/** One fix task per owner: every failing command whose output names its files. */
function routesFor(
  checks: CheckResult[],
  ownership: Awaited<ReturnType<typeof landedOwnership>>,
  round: number,
) {
  const parts = new Map<string, string[]>();
  for (const check of checks) {
    if (check.passed) continue;
    for (const { owner, files } of ownersOf(check.output, ownership)) {
      if (owner === null) continue;
      const tail = check.output.length > OUTPUT_TAIL ? `…${check.output.slice(-OUTPUT_TAIL)}` : check.output;
      parts.set(owner, [
        ...(parts.get(owner) ?? []),
        `\`${check.command}\` failed (exit ${check.exitCode}); your files involved: ${files.join(', ') || '(none named)'}\n` +
          `\`\`\`\n${tail}\n\`\`\``,
      ]);
    }
  }
  const prompts = new Map<string, string>();
  for (const [owner, failures] of parts)
    prompts.set(
      owner,
      `Acceptance round ${round}: the team's result on main fails the acceptance check, and you own files it involves.\n\n` +
        `${failures.join('\n\n')}\n\n` +
        'Sync with main first, fix the cause in your worktree, then land the fix with merge_request. ' +
        'Answer with what you changed.',
    );
  return prompts;
}

function merge(failures: Array<{ owner: string | null; files: string[] }>) {
  const byOwner = new Map<string | null, Set<string>>();
  for (const f of failures) byOwner.set(f.owner, new Set([...(byOwner.get(f.owner) ?? []), ...f.files]));
  return [...byOwner].map(([owner, files]) => ({ owner, files: [...files].sort() }));
}
