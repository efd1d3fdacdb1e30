/** `colony eval`: was the team worth it? Subcommands: report (built), run and plant (not built yet). */
import { join } from 'node:path';
import { evalReport, writeEvalPage } from '../../eval/report/write-eval-report.js';
import { numberFlag, onePositional, parseFlags, UsageError } from '../args.js';
import { CliFailure } from '../store-access.js';

export const EVAL_HELP = `colony eval <subcommand>

  report DIR [--out FILE] [--json] [--seed N] [--resamples N]
      Statistics of an eval directory (DIR/arms.json and DIR/trials.jsonl, format in docs/eval.md):
      per arm the pass rate with its 95% interval, pass@k and pass^k, cost per success and median
      wall-clock; each arm against the solo arm, paired by task (bootstrap interval, exact McNemar
      or sign-flip test, Holm across arms) with the smallest difference the sample could detect.
      Writes a self-contained HTML page with the charts to FILE (default DIR/report.html) and prints
      its path and the answer in plain sentences. --json prints the summary as one JSON object
      instead (and writes the page only when --out is given). Bad lines of trials.jsonl are reported
      on stderr and left out; the rest is kept. Resampling is seeded (--seed, default 1).
  run                 not built yet: run a task suite with several team configurations
  plant               not built yet: make tasks from a repository by planting bugs`;

const NOT_BUILT: Record<string, string> = {
  run: 'eval run is not built yet (it will run a task suite with each arm; see docs/eval.md). Today: colony eval report DIR on trial records you have.',
  plant: 'eval plant is not built yet (it will make tasks from a repository by mutation; see docs/eval.md).',
};

async function reportSubcommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      out: { type: 'string' },
      json: { type: 'boolean' },
      seed: { type: 'string' },
      resamples: { type: 'string' },
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
  const report = evalReport(dir, {
    ...(seed !== undefined ? { seed } : {}),
    ...(resamples !== undefined ? { resamples } : {}),
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
  if (sub === 'report') return reportSubcommand(rest);
  const notBuilt = sub === undefined ? undefined : NOT_BUILT[sub];
  if (notBuilt) throw new UsageError(notBuilt);
  throw new UsageError(
    sub === undefined
      ? 'eval: missing subcommand (usage: colony eval report DIR; see colony eval --help)'
      : `eval: unknown subcommand "${sub}" (subcommands: report, run, plant; see colony eval --help)`,
  );
}
