/**
 * `colony run --attempts N`: the coordinator's side in the CLI: start the attempts, print each start
 * and end, the comparison table and the winner, and publish only the winner (`--push`).
 */
import { attemptsTable, newAttemptGroupId, runAttempts } from '../attempts/index.js';
import { terminalJson, terminalLine } from '../core/terminal-text.js';
import type { PreparedPublish } from '../forge/index.js';
import type { RunSpec } from '../run/run-spec.js';
import { openSandbox } from '../sandbox/index.js';
import type { Store } from '../store/index.js';
import { exitCodeFor } from '../view/summary.js';
import type { AttemptsSettings } from './attempts-flags.js';
import { publishAfterRun } from './commands/publish.js';
import { CliFailure } from './store-access.js';

/** Run flags the coordinator sets itself for each attempt, or that are its own. */
export const NOT_PASSED_TO_ATTEMPTS = new Set([
  'goal',
  'repo',
  'base',
  'json',
  'push',
  'run-id',
  'help',
  'pr',
  'draft',
  'label',
  'reviewer',
  'per-merge-request',
  'forge',
  'forge-api',
  'attempts',
  'attempts-concurrency',
  'judge',
  'attempt-of',
]);

/** The flags given, as each attempt's `colony run` gets them. */
export function attemptRunArgs(
  options: Record<string, unknown>,
  values: Record<string, string | string[] | boolean | undefined>,
): string[] {
  const args: string[] = [];
  for (const name of Object.keys(options)) {
    if (NOT_PASSED_TO_ATTEMPTS.has(name)) continue;
    const value = values[name];
    if (value === undefined || value === false) continue;
    if (value === true) args.push(`--${name}`);
    else for (const one of Array.isArray(value) ? value : [value]) args.push(`--${name}=${one}`);
  }
  return args;
}

export async function runAttemptsCommand(options: {
  store: Store;
  spec: RunSpec;
  settings: AttemptsSettings;
  runArgs: string[];
  json: boolean;
  publishing: PreparedPublish | null;
}): Promise<number> {
  const { store, spec, settings, json } = options;
  const sandbox = await openSandbox(spec.sandbox, process.env);
  if (!sandbox.ok) throw new CliFailure(`run: ${sandbox.error}`);
  const group = newAttemptGroupId();
  const say = (line: string) => {
    if (!json) process.stdout.write(`${terminalLine(line)}\n`);
  };
  say(
    `attempts ${group}: ${settings.count} attempt(s), ${settings.concurrency} at once, from ${spec.baseCommit.slice(0, 10)}`,
  );
  const result = await runAttempts({
    store,
    group,
    count: settings.count,
    concurrency: settings.concurrency,
    repo: spec.repo,
    baseCommit: spec.baseCommit,
    goal: spec.goal,
    runArgs: options.runArgs,
    judge: settings.judge,
    ...(spec.setup ? { setup: spec.setup } : {}),
    sandbox: sandbox.value,
    env: process.env,
    onStarted: (index, runId) => say(`attempt ${index}: run ${runId} started`),
    onEnded: (a) => say(`attempt ${a.index}: run ${a.runId} ${a.status}`),
  });
  const { ranked, winner, winnerBranch, winnerSummary } = result;
  if (json) {
    process.stdout.write(
      `${terminalJson({ group, attempts: ranked, winner: winner?.runId ?? null, winnerBranch })}\n`,
    );
  } else {
    process.stdout.write(`${attemptsTable(ranked, winner)}\n`);
    if (!winner) say('no winner: no attempt landed anything');
    else if (winnerBranch?.error)
      say(`winner: attempt ${winner.index} (run ${winner.runId}); ${winnerBranch.error}`);
    else
      say(
        `winner: attempt ${winner.index} (run ${winner.runId}), branch ${winner.branch} and ${winnerBranch?.branch ?? '—'}`,
      );
  }
  if (winnerBranch?.error && json) process.stderr.write(`${terminalLine(winnerBranch.error)}\n`);
  const code = winnerSummary ? exitCodeFor(winnerSummary.status) : 1;
  if (options.publishing && winnerSummary)
    return publishAfterRun(store, winnerSummary, options.publishing, json, code);
  return code;
}
