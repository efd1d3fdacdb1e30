/**
 * `colony eval`: was the team worth it? report (here), run (eval-run.ts), validate, import-swe-bench
 * and plant (eval-suite.ts).
 */
import { join } from 'node:path';
import { armLine } from '../../eval/report/text.js';
import { evalReport, writeEvalPage } from '../../eval/report/write-eval-report.js';
import { numberFlag, onePositional, parseFlags, UsageError } from '../args.js';
import { CliFailure } from '../store-access.js';
import { runSubcommand } from './eval-run.js';
import { importSubcommand, plantSubcommand, validateSubcommand } from './eval-suite.js';

export const EVAL_HELP = `colony eval <subcommand>

  report DIR [--out FILE] [--json] [--seed N] [--resamples N] [--compare A,B]…
      Statistics of an eval directory (DIR/arms.json and DIR/trials.jsonl, format in docs/eval.md):
      per arm the pass rate with its 95% interval, pass@k and pass^k, cost per success and median
      wall-clock; each arm against the solo arm, paired by task (bootstrap interval, exact McNemar
      or sign-flip test, Holm across arms) with the smallest difference the sample could detect.
      Writes a self-contained HTML page with the charts to FILE (default DIR/report.html) and prints
      its path and the answer in plain sentences. --json prints the summary as one JSON object
      instead (and writes the page only when --out is given). Bad lines of trials.jsonl are reported
      on stderr and left out; the rest is kept. Resampling is seeded (--seed, default 1).
      --compare A,B (repeatable): arm A against arm B, paired by task as against solo, Holm-adjusted
      across the comparisons asked for. Intervals also for pass@k, the mean score and cost per
      success; a per-tag breakdown when DIR/tasks.json (written by eval run) names the tags.
  run --suite DIR --arms FILE --trials K [--out DIR] [--concurrency N] [--sandbox on|auto|off]
      [--grade-sandbox on|off] [--allow-network] [--keep] [--trajectories]
      Every task × arm × trial as a real Colony run on the task's start state (no hidden tests),
      graded with the hidden tests; one record per trial appended to OUT/trials.jsonl (OUT default
      eval-out), the arms written to OUT/arms.json, the tasks' tags to OUT/tasks.json. An arm:
      {name, topology (solo, peers, orchestrated, workflow), size, model, …}; orchestrated may give
      models {lead, subagent}; a workflow arm names its program (relative to arms.json). A top-level
      "budget": {usd, tokens} is every arm's limit (an arm may only lower it). Model "sim:p=0.6" or
      "sim:truth=FILE" is a SIMULATED agent with a known chance of success, for checking the
      harness and the statistics (docs/eval.md). Each record has the time to first green verify.
      Resumable: recorded trials are skipped. Harness failures are recorded as infra_error.
      --concurrency N trials at once (default 1; each a colony run process). --sandbox: the agents'
      commands (default auto). Grading runs the agents' code: in a bubblewrap sandbox with no network
      and only PATH, LANG and TERM of your environment (--grade-sandbox on, the default: an error
      when bubblewrap cannot run here); --grade-sandbox off grades uncontained, as your user
      (without your keys). --allow-network: the runs' commands and the grading get the network.
      --trajectories: each trial's run as its orchestrator trajectory (colony export --format
      trajectory, r_perf = the trial's score) in OUT/trajectories/<arm>/<task>-<trial>.jsonl.
  validate SUITE [--concurrency N] [--sandbox]
      Check every task: its start state fails as listed, its reference.patch passes. Exit 1 when
      any task is invalid (each named with the reason).
  import-swe-bench FILE --out DIR --verify CMD --results FORMAT [--results-file F] [--setup CMD]…
      [--timeout S] [--with-hints] [--overwrite]
      Task folders from SWE-bench-style instances (JSON array or lines). FORMAT: node-test-tap,
      junit-xml or jest-json; the verify command is yours (docs/eval-suites.md).
  plant --repo DIR --bugs K --verify CMD --results FORMAT [--out DIR] [--seed N] [--include PATH]…
      [--hide-tests] [--max-runs N] [--setup CMD]… [--timeout S] [--sandbox]
      A task from a JS/TS git checkout by planting K bugs in K modules (mutants its tests kill).
      Writes the task folder OUT (default planted-K).`;

const SUBCOMMANDS = 'report, run, validate, import-swe-bench, plant';

async function reportSubcommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      out: { type: 'string' },
      json: { type: 'boolean' },
      seed: { type: 'string' },
      resamples: { type: 'string' },
      compare: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    'eval report',
  );
  if (values.help) {
    process.stdout.write(`${EVAL_HELP}\n`);
    return 0;
  }
  const dir = onePositional(positionals, 'dir', 'eval report');
  const seed = numberFlag(values.seed, 'seed', 'int');
  const resamples = numberFlag(values.resamples, 'resamples', 'int');
  const compare = (values.compare ?? []).map((text) => {
    const [a, b, ...rest] = text.split(',').map((s) => s.trim());
    if (!a || !b || rest.length > 0)
      throw new UsageError(`eval report: --compare takes two arm names, A,B (got "${text}")`);
    return [a, b] as const;
  });
  const report = evalReport(dir, {
    ...(seed !== undefined ? { seed } : {}),
    ...(resamples !== undefined ? { resamples } : {}),
    ...(compare.length > 0 ? { compare } : {}),
  });
  if (!report.ok) throw new CliFailure(`eval report: ${report.error}`);
  const { summary, issues } = report.value;
  for (const line of issues) process.stderr.write(`colony: ${line}\n`);
  let page: string | null = null;
  if (!values.json || values.out) {
    const written = writeEvalPage(summary, dir, values.out ?? join(dir, 'report.html'));
    if (!written.ok) throw new CliFailure(written.error);
    page = written.value;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  const lines = [
    page ?? '',
    ...summary.arms.map((a) => `  ${armLine(a)}`),
    ...summary.headline.map((l) => `- ${l}`),
    ...summary.warnings.map((w) => `! ${w}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

export async function evalCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(`${EVAL_HELP}\n`);
    return 0;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${EVAL_HELP}\n`);
    return 0;
  }
  switch (sub) {
    case 'report':
      return reportSubcommand(rest);
    case 'run':
      return runSubcommand(rest);
    case 'validate':
      return validateSubcommand(rest);
    case 'import-swe-bench':
      return importSubcommand(rest);
    case 'plant':
      return plantSubcommand(rest);
  }
  throw new UsageError(
    sub === undefined
      ? `eval: missing subcommand (${SUBCOMMANDS}; see colony eval --help)`
      : `eval: unknown subcommand "${sub}" (subcommands: ${SUBCOMMANDS}; see colony eval --help)`,
  );
}
