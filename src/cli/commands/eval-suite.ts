/**
 * `colony eval validate | import-swe-bench | plant`: the task-suite commands (docs/eval-suites.md),
 * each a thin shell around a function of src/eval/suite. Usage errors are UsageError (exit 2),
 * failures CliFailure (exit 1) with every problem on its own line.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { loadSuite } from '../../eval/suite/load.js';
import { describeMutant } from '../../eval/suite/mutants.js';
import { plantTask } from '../../eval/suite/plant.js';
import { importSweBench } from '../../eval/suite/swe-bench.js';
import { RESULT_FORMATS, type ResultFormat } from '../../eval/suite/task.js';
import { validateSuite } from '../../eval/suite/validate.js';
import { openSandbox } from '../../sandbox/index.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { numberFlag, onePositional, parseFlags, UsageError } from '../args.js';
import { CliFailure } from '../store-access.js';

const print = (line: string) => process.stdout.write(`${line}\n`);

function resultsFormat(value: string | undefined, command: string): ResultFormat {
  if (value === undefined)
    throw new UsageError(`${command}: missing --results FORMAT (one of ${RESULT_FORMATS.join(', ')})`);
  if (!(RESULT_FORMATS as readonly string[]).includes(value))
    throw new UsageError(`${command}: --results must be one of ${RESULT_FORMATS.join(', ')}, got "${value}"`);
  return value as ResultFormat;
}

function required(value: string | undefined, flag: string, command: string, what: string): string {
  if (value === undefined || value === '')
    throw new UsageError(`${command}: missing --${flag} ${what} (see colony eval --help)`);
  return value;
}

/** `--sandbox`: setup and verify contained in bubblewrap, or an error saying why it cannot be. */
export async function sandboxFlag(on: boolean | undefined): Promise<Sandbox | null> {
  if (!on) return null;
  const opened = await openSandbox({ enabled: true, network: false, passEnv: [] }, process.env);
  if (!opened.ok) throw new CliFailure(`--sandbox: ${opened.error}`);
  return opened.value;
}

export async function validateSubcommand(argv: string[]): Promise<number> {
  const cmd = 'eval validate';
  const { values, positionals } = parseFlags(
    argv,
    { concurrency: { type: 'string' }, sandbox: { type: 'boolean' } },
    cmd,
  );
  const dir = onePositional(positionals, 'suite', cmd);
  const concurrency = numberFlag(values.concurrency, 'concurrency', 'int') ?? availableParallelism();
  const suite = loadSuite(dir);
  if (!suite.ok) throw new CliFailure(`${cmd}: the suite does not load:\n  ${suite.error.join('\n  ')}`);
  const sandbox = await sandboxFlag(values.sandbox);
  print(`validating ${suite.value.tasks.length} task(s) of ${suite.value.name} (${concurrency} at a time)`);
  const result = await validateSuite(suite.value, { concurrency, sandbox });
  for (const t of result.tasks) {
    const secs = (t.durationMs / 1000).toFixed(1);
    print(t.valid ? `valid    ${t.taskId} (${secs} s)` : `INVALID  ${t.taskId}: ${t.problems.join('; ')}`);
  }
  const bad = result.tasks.filter((t) => !t.valid).length;
  print(
    bad === 0
      ? `all ${result.tasks.length} task(s) valid`
      : `${bad} of ${result.tasks.length} task(s) invalid`,
  );
  return bad === 0 ? 0 : 1;
}

export async function importSubcommand(argv: string[]): Promise<number> {
  const cmd = 'eval import-swe-bench';
  const { values, positionals } = parseFlags(
    argv,
    {
      out: { type: 'string' },
      verify: { type: 'string' },
      results: { type: 'string' },
      'results-file': { type: 'string' },
      setup: { type: 'string', multiple: true },
      timeout: { type: 'string' },
      'with-hints': { type: 'boolean' },
      overwrite: { type: 'boolean' },
    },
    cmd,
  );
  const file = onePositional(positionals, 'file', cmd);
  const out = required(values.out, 'out', cmd, 'DIR (the suite folder to write)');
  const command = required(values.verify, 'verify', cmd, 'CMD (the command that runs the tests)');
  const results = resultsFormat(values.results, cmd);
  const timeoutS = numberFlag(values.timeout, 'timeout', 'int');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliFailure(`${cmd}: cannot read ${file}: ${(e as Error).message}`);
  }
  const imported = await importSweBench(
    text,
    out,
    {
      verify: { command, results, ...(values['results-file'] ? { file: values['results-file'] } : {}) },
      ...(values.setup ? { setup: values.setup } : {}),
      ...(timeoutS !== undefined ? { timeoutS } : {}),
      ...(values['with-hints'] ? { withHints: true } : {}),
      ...(values.overwrite ? { overwrite: true } : {}),
    },
    file,
  );
  if (!imported.ok) throw new CliFailure(`${cmd}: nothing written:\n  ${imported.error.join('\n  ')}`);
  for (const id of imported.value.tasks) print(`imported ${id}`);
  print(`${imported.value.tasks.length} task(s) in ${out}; check them with colony eval validate ${out}`);
  return 0;
}

export async function plantSubcommand(argv: string[]): Promise<number> {
  const cmd = 'eval plant';
  const { values, positionals } = parseFlags(
    argv,
    {
      repo: { type: 'string' },
      bugs: { type: 'string' },
      verify: { type: 'string' },
      results: { type: 'string' },
      'results-file': { type: 'string' },
      setup: { type: 'string', multiple: true },
      out: { type: 'string' },
      id: { type: 'string' },
      seed: { type: 'string' },
      include: { type: 'string', multiple: true },
      'hide-tests': { type: 'boolean' },
      'max-runs': { type: 'string' },
      timeout: { type: 'string' },
      sandbox: { type: 'boolean' },
    },
    cmd,
  );
  if (positionals[0] !== undefined) throw new UsageError(`${cmd}: unexpected argument "${positionals[0]}"`);
  const repo = required(values.repo, 'repo', cmd, 'DIR (a git checkout of a JS/TS repository)');
  const bugs = numberFlag(
    required(values.bugs, 'bugs', cmd, 'K (bugs to plant, one per module)'),
    'bugs',
    'int',
  );
  const command = required(values.verify, 'verify', cmd, 'CMD (the command that runs the tests)');
  const results = resultsFormat(values.results, cmd);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed))
    throw new UsageError(`--seed must be an integer, got "${values.seed}"`);
  const maxRuns = numberFlag(values['max-runs'], 'max-runs', 'int');
  const timeoutS = numberFlag(values.timeout, 'timeout', 'int');
  const out = values.out ?? `planted-${bugs}`;
  const sandbox = await sandboxFlag(values.sandbox);
  const planted = await plantTask({
    repo,
    out,
    bugs: bugs ?? 1,
    verify: { command, results, ...(values['results-file'] ? { file: values['results-file'] } : {}) },
    ...(values.setup ? { setup: values.setup } : {}),
    ...(values.id ? { id: values.id } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(values.include ? { include: values.include } : {}),
    ...(values['hide-tests'] ? { hideTests: true } : {}),
    ...(maxRuns !== undefined ? { maxRuns } : {}),
    ...(timeoutS !== undefined ? { timeoutS } : {}),
    sandbox,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (!planted.ok) throw new CliFailure(`${cmd}: ${planted.error}`);
  const { dir, spec, mutants, runs } = planted.value;
  print(`planted ${mutants.length} bug(s) in ${dir} (${runs} test run(s)); task ${spec.id}`);
  print(`failToPass: ${spec.failToPass.length} test(s); passToPass: ${spec.passToPass.length}`);
  for (const m of mutants) print(`  ${describeMutant(m)}`);
  print(
    'a task folder: put it in a suite folder (one folder of task folders) and run colony eval validate SUITE',
  );
  return 0;
}
