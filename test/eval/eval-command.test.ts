/**
 * `colony eval`: the report subcommand end to end on an eval directory of SIMULATED trials (in
 * process through the CLI's main, and once through the built bin/colony.js as a user runs it), and
 * usage errors of the other subcommands (their own tests: test/eval/eval-suite-command.test.ts, test/eval/run/).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { EvalSummary } from '../../src/eval/report/summary-types.js';
import { simTruthFrom } from '../../src/eval/sim/sim-population.js';
import { simArm } from '../../src/eval/sim/sim-truth.js';
import { simArms, simulateTrials } from '../../src/eval/sim/simulate-trials.js';
import { colony } from '../helpers/cli.js';

/** An eval directory: arms.json and trials.jsonl of a simulated eval, plus one bad line. */
function evalDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'colony-eval-'));
  const arms = [simArm('solo', 1), simArm('peers-4', 4)];
  const pop = {
    repos: 4,
    tasksPerRepo: 5,
    soloRates: [0.2, 0.4],
    repoShifts: [0],
    effects: { 'peers-4': [0.4] },
  };
  const truth = simTruthFrom(pop, arms, 1);
  const lines = simulateTrials(truth, { trials: 1, seed: 1 }).map((r) => JSON.stringify(r));
  lines.splice(3, 0, '{"v":1,"arm":"solo"}');
  writeFileSync(join(dir, 'arms.json'), JSON.stringify({ v: 1, arms: simArms(truth) }));
  writeFileSync(join(dir, 'trials.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('colony eval report', () => {
  it('--json prints the summary, reports the bad line and keeps the rest', async () => {
    const dir = evalDir();
    const { code, stdout, stderr } = await run(['eval', 'report', dir, '--json']);
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(stdout) as EvalSummary;
    expect(summary.arms.map((a) => [a.name, a.trials])).toEqual([
      ['solo', 20],
      ['peers-4', 20],
    ]);
    expect(summary.comparisons[0]?.arm).toBe('peers-4');
    expect(stderr).toMatch(/trials\.jsonl line 4: /);
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
  });

  it('writes the page (default DIR/report.html, or --out) and prints its path and the answer', async () => {
    const dir = evalDir();
    const first = await run(['eval', 'report', dir]);
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines[0]).toBe(join(dir, 'report.html'));
    // One line per arm (pass rate, cost per success, wall-clock, first green), then the answer,
    // which says first that the arms are simulated.
    expect(lines[1]).toMatch(
      /^ {2}solo \(simulated\): pass [\d.]+% \([\d.]+%–[\d.]+%\) on 20 task\(s\), cost per success /,
    );
    expect(lines[1]).toMatch(/to first green [\d.]+ s$/);
    expect(lines[3]).toMatch(/^- SIMULATED: every arm uses a sim: model/);
    expect(lines[4]).toMatch(/^- peers-4 \(simulated\)/);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('data-chart="win-loss"');
    const out = join(dir, 'elsewhere', 'page.html');
    const second = await run(['eval', 'report', dir, '--out', out, '--json', '--seed', '7']);
    expect(second.code).toBe(0);
    expect((JSON.parse(second.stdout) as EvalSummary).seed).toBe(7);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('fails clearly: no directory given (2), a directory without arms.json (1), bad flags (2)', async () => {
    expect((await run(['eval', 'report'])).stderr).toMatch(/eval report: missing dir/);
    expect((await run(['eval', 'report'])).code).toBe(2);
    const empty = mkdtempSync(join(tmpdir(), 'colony-eval-empty-'));
    const missing = await run(['eval', 'report', empty]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${join(empty, 'arms.json')} does not exist`);
    mkdirSync(join(empty, 'x'));
    writeFileSync(join(empty, 'arms.json'), '{"v":1,"arms":[]}');
    expect((await run(['eval', 'report', empty])).stderr).toMatch(/arms\.json: arms file is invalid at arms/);
    expect((await run(['eval', 'report', empty, '--seed', 'x'])).code).toBe(2);
  });
});

describe('colony eval report --compare', () => {
  it('compares two arms, paired by task, Holm across the comparisons asked for', async () => {
    const dir = evalDir();
    const { code, stdout, stderr } = await run([
      'eval',
      'report',
      dir,
      '--json',
      '--compare',
      'solo,peers-4',
      '--resamples',
      '200',
    ]);
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(stdout) as EvalSummary;
    expect(summary.pairwise).toHaveLength(1);
    const c = summary.pairwise[0];
    const vsSolo = summary.comparisons[0];
    // The same pairs as peers-4 against solo, seen from the other side.
    expect(c).toMatchObject({ arm: 'solo', baseline: 'peers-4', pairedTasks: vsSolo?.pairedTasks });
    expect(c?.diff).toBeCloseTo(-(vsSolo?.diff ?? 0), 12);
    expect(c?.p).toBeCloseTo(vsSolo?.p ?? 0, 12);
    expect(c?.pHolm).toBe(c?.p);
  });

  it('refuses an unknown arm (exit 1) and a malformed pair (exit 2)', async () => {
    const dir = evalDir();
    const unknown = await run(['eval', 'report', dir, '--compare', 'solo,nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--compare solo,nope: no arm "nope" in arms\.json/);
    const bad = await run(['eval', 'report', dir, '--compare', 'solo']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--compare takes two arm names/);
  });
});

describe('colony eval subcommands', () => {
  it.each([
    [['eval', 'run', '--suite', 's'], /eval run: missing --arms FILE/],
    [['eval', 'plant'], /eval plant: missing --repo DIR/],
    [['eval'], /eval: missing subcommand/],
    [['eval', 'frobnicate'], /unknown subcommand "frobnicate"/],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const { code, stderr } = await run(argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('--help explains the report and lists eval in colony --help', async () => {
    const help = await run(['eval', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('colony eval <subcommand>');
    expect((await run(['--help'])).stdout).toContain('eval report DIR');
  });
});

describe('the built CLI', () => {
  it('node bin/colony.js eval report DIR --json', async () => {
    const dir = evalDir();
    const result = await colony(['eval', 'report', dir, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as EvalSummary;
    expect(summary.v).toBe(1);
    expect(summary.baseline).toBe('solo');
    expect(result.stderr).toMatch(/line 4/);
  });
});
