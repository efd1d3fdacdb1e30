/**
 * `colony eval run`: a suite × arms × trials as real Colony runs (src/eval/run), graded into trial
 * records that `colony eval report` reads.
 */
import { join } from 'node:path';
import { terminalText } from '../../core/terminal-text.js';
import { runEval } from '../../eval/run/run-eval.js';
import { TRAJECTORIES_DIR, type TrajectoryExport } from '../../eval/run/trial-trajectory.js';
import { SANDBOX_MODES, type SandboxMode } from '../../sandbox/index.js';
import { numberFlag, parseFlags, UsageError } from '../args.js';
import { CliFailure, withStore } from '../store-access.js';

const GRADE_SANDBOX_MODES = ['on', 'off'] as const;

export async function runSubcommand(argv: string[]): Promise<number> {
  const cmd = 'eval run';
  const { values, positionals } = parseFlags(
    argv,
    {
      suite: { type: 'string' },
      arms: { type: 'string' },
      trials: { type: 'string' },
      out: { type: 'string' },
      concurrency: { type: 'string' },
      sandbox: { type: 'string' },
      'grade-sandbox': { type: 'string' },
      'allow-network': { type: 'boolean' },
      keep: { type: 'boolean' },
      trajectories: { type: 'boolean' },
    },
    cmd,
  );
  if (positionals[0] !== undefined) throw new UsageError(`${cmd}: unexpected argument "${positionals[0]}"`);
  const usage = 'usage: colony eval run --suite DIR --arms arms.json --trials K [--out DIR]';
  if (!values.suite) throw new UsageError(`${cmd}: missing --suite DIR (a folder of task folders; ${usage})`);
  if (!values.arms) throw new UsageError(`${cmd}: missing --arms FILE (the team configurations; ${usage})`);
  if (!values.trials) throw new UsageError(`${cmd}: missing --trials K (trials per task and arm; ${usage})`);
  const trials = numberFlag(values.trials, 'trials', 'int') ?? 1;
  const concurrency = numberFlag(values.concurrency, 'concurrency', 'int');
  const mode = values.sandbox ?? 'auto';
  if (!(SANDBOX_MODES as readonly string[]).includes(mode))
    throw new UsageError(`${cmd}: --sandbox must be one of ${SANDBOX_MODES.join(', ')}, got "${mode}"`);
  const gradeMode = values['grade-sandbox'] ?? 'on';
  if (!(GRADE_SANDBOX_MODES as readonly string[]).includes(gradeMode))
    throw new UsageError(`${cmd}: --grade-sandbox must be on or off, got "${gradeMode}"`);
  const out = values.out ?? 'eval-out';
  const { suite, arms } = values;
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    const result = await withTrajectoryStore(values.trajectories === true, (trajectories) =>
      runEval({
        suite,
        arms,
        trials,
        out,
        ...(concurrency !== undefined ? { concurrency } : {}),
        sandbox: mode as SandboxMode,
        gradeSandbox: gradeMode as (typeof GRADE_SANDBOX_MODES)[number],
        ...(values['allow-network'] ? { allowNetwork: true } : {}),
        ...(values.keep ? { keep: true } : {}),
        signal: controller.signal,
        // A trial's note can quote its run's stderr (an agent's file names, say).
        log: (line) => process.stdout.write(`${terminalText(line)}\n`),
        ...(trajectories ? { trajectories } : {}),
      }),
    );
    if (!result.ok) throw new CliFailure(`${cmd}: ${result.error}`);
    const { ran, skipped, outcomes, simulated } = result.value;
    process.stdout.write(
      `ran ${ran} trial(s) (${skipped} already recorded): ${outcomes.pass} pass, ${outcomes.fail} fail, ` +
        `${outcomes.timeout} timeout, ${outcomes.infra_error} infra error\n` +
        (simulated.length > 0 ? `SIMULATED arms (sim: model): ${simulated.join(', ')}\n` : '') +
        (values.trajectories
          ? `trajectories: ${join(out, TRAJECTORIES_DIR)}/<arm>/<task>-<trial>.jsonl\n`
          : '') +
        `next: colony eval report ${out}\n`,
    );
    return controller.signal.aborted ? 130 : 0;
  } finally {
    process.off('SIGINT', stop);
  }
}

/** `--trajectories`: the trials' runs are read from Colony's database, opened once for the eval. */
function withTrajectoryStore<T>(
  wanted: boolean,
  fn: (trajectories: TrajectoryExport | null) => Promise<T>,
): Promise<T> {
  if (!wanted) return fn(null);
  return withStore((store) => fn({ readEvents: (runId) => store.log.read(runId) }));
}
