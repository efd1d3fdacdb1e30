/**
 * `colony plan` on real recorded runs through the built CLI: a workflow program's DAG (the review
 * demo), `--check` and `--check --from`, `--html`, `--tasks`, `--check-eval` over an eval directory
 * whose records point at those runs, and the errors.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport, EvalCheckSummary, PlanReport } from '../../../src/eval/plan/index.js';
import { colony } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'colony-plan-check-'));
const runs: Record<'solo' | 'review' | 'orchestrated', string> = { solo: '', review: '', orchestrated: '' };

async function demo(kind: keyof typeof runs): Promise<string> {
  const result = await colony(['demo', kind, '--dir', mkdtempSync(join(dir, `${kind}-`))]);
  expect(result.code, result.stderr).toBe(0);
  const runId = /run (r-[0-9a-z]+-[0-9a-f]{6}): succeeded/.exec(result.stdout)?.[1] ?? '';
  expect(runId, result.stdout).not.toBe('');
  return runId;
}

beforeAll(async () => {
  runs.solo = await demo('solo');
  runs.review = await demo('review');
  runs.orchestrated = await demo('orchestrated');
}, 240_000);

const seeded = ['--seed', '2', '--samples', '60'];

describe('colony plan: workflow DAG, chart, check', () => {
  it('plans a workflow run from its steps and stages and writes the chart page', async () => {
    const html = join(dir, 'plan.html');
    const result = await colony([
      'plan',
      runs.review,
      '--json',
      '--sizes',
      '1,2,4',
      '--html',
      html,
      ...seeded,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as PlanReport;
    expect(report.source).toBe('workflow');
    const show = JSON.parse((await colony(['show', runs.review, '--json'])).stdout) as { totalSteps: number };
    expect(report.workSteps).toBe(show.totalSteps);
    // Four explorers in parallel (the merge stage is plain code, no agent step): a team helps.
    expect(report.tasks).toBe(4);
    expect(report.parallelism).toBeGreaterThan(1.5);
    expect(report.rows[1]?.scheduleMs).toBeLessThan(report.rows[0]?.scheduleMs ?? 0);
    expect(report.measured.teamSize).toBeGreaterThanOrEqual(4);

    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(page).toContain('data-chart="plan-makespan"');
    expect(page).toContain('data-chart="plan-cost"');
    expect(page).toContain(`data-recommended="${report.recommendation?.p}"`);
    expect(page).toContain('data-band="makespan"');
    expect(page).toContain('data-line="brentLowerMs"');
  });

  it('--check compares the prediction with the run; --from predicts it from another run', async () => {
    const self = await colony(['plan', '--check', runs.orchestrated, '--json', ...seeded]);
    expect(self.code, self.stderr).toBe(0);
    const report = JSON.parse(self.stdout) as CheckReport;
    const show = JSON.parse((await colony(['show', runs.orchestrated, '--json'])).stdout) as {
      wallClockMs: number;
      costUsd: number;
    };
    expect(report.fromRunId).toBe(runs.orchestrated);
    expect(report.makespanMs.measured).toBe(show.wallClockMs);
    expect(report.costUsd?.measured).toBe(show.costUsd);
    expect(report.makespanMs.band.p10).toBeLessThanOrEqual(report.makespanMs.predicted);
    expect(report.makespanMs.predicted).toBeLessThanOrEqual(report.makespanMs.band.p90);
    expect(report.makespanMs.relError).toBeCloseTo(
      (report.makespanMs.predicted - show.wallClockMs) / show.wallClockMs,
      9,
    );
    expect(report.overheadMs).toBeGreaterThanOrEqual(0);

    const from = await colony(['plan', '--check', runs.orchestrated, '--from', runs.solo]);
    expect(from.code, from.stderr).toBe(0);
    expect(from.stdout).toContain(`from run ${runs.solo}'s task graph`);
    expect(from.stdout).toContain('A DIFFERENT GOAL');
    expect(from.stdout).toMatch(/makespan: predicted .* measured .* error [+-]/);
    expect(from.stdout).toMatch(/cost: predicted .* measured /);
  });

  it('--check-eval checks every run of an eval directory, itself and from the baseline', async () => {
    const evalDir = mkdtempSync(join(dir, 'eval-'));
    writeFileSync(
      join(evalDir, 'arms.json'),
      JSON.stringify({
        v: 1,
        arms: [
          { name: 'solo', topology: 'solo', size: 1, solo: true },
          { name: 'orch', topology: 'orchestrated', size: 2 },
          { name: 'wf', topology: 'workflow', size: 4 },
        ],
      }),
    );
    const record = (arm: string, task: string, runId: string) => ({
      v: 1,
      arm,
      task,
      repo: 'demo',
      trial: 0,
      outcome: 'pass',
      score: 1,
      wallMs: 1,
      firstGreenMs: null,
      tokens: { input: 0, cachedInput: 0, output: 0 },
      costUsd: 0,
      criticalSteps: 0,
      parallelism: 1,
      merges: 0,
      conflicts: 0,
      runId,
    });
    const lines = [
      record('solo', 't', runs.solo),
      record('orch', 't', runs.orchestrated),
      record('wf', 't', runs.review),
      record('orch', 'gone', 'r-nosuchrun-000000'),
    ];
    writeFileSync(join(evalDir, 'trials.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

    const result = await colony(['plan', '--check-eval', evalDir, '--json', ...seeded]);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as EvalCheckSummary;
    expect(summary.baseline).toBe('solo');
    const self = summary.rows.filter((r) => r.kind === 'self');
    expect(self.map((r) => r.runId)).toEqual([
      runs.solo,
      runs.orchestrated,
      runs.review,
      'r-nosuchrun-000000',
    ]);
    expect(self[3]?.result).toMatchObject({ ok: false, error: expect.stringMatching(/no such run/) });
    const fromBaseline = summary.rows.filter((r) => r.kind === 'from-baseline');
    expect(fromBaseline.map((r) => [r.runId, r.fromRunId])).toEqual([
      [runs.orchestrated, runs.solo],
      [runs.review, runs.solo],
    ]);
    const all = summary.groups.find((g) => g.kind === 'self' && g.arm === '*');
    expect(all).toMatchObject({ checks: 4, failed: 1 });
    expect(all?.makespan.n).toBe(3);
    expect(all?.makespan.medianAbsRel).toBeGreaterThanOrEqual(0);
    expect(all?.makespan.maxAbsRel).toBeGreaterThanOrEqual(all?.makespan.medianAbsRel ?? 0);
    expect(all?.makespan.coverage).toBeGreaterThanOrEqual(0);
    expect(all?.replay.n).toBe(3);
    expect(all?.replay.coverage).toBeNull();
    const soloSelf = self[0]?.result;
    // A solo run replays exactly: one task, its own overhead.
    expect(soloSelf?.ok && Math.abs(soloSelf.report.scheduleRelError ?? 1)).toBeLessThan(1e-9);

    const text = await colony(['plan', '--check-eval', evalDir, ...seeded]);
    expect(text.stdout).toMatch(/makespan \|err\| p50/);
    expect(text.stdout).toMatch(/not checked:\n {2}self orch gone #0: no such run/);
  });

  it('--tasks plans a task file before any run', async () => {
    const file = join(dir, 'tasks.json');
    writeFileSync(
      file,
      JSON.stringify({
        v: 1,
        tasks: [
          { id: 'a', estimateMs: 60_000 },
          { id: 'b', estimateMs: 60_000 },
          { id: 'c', estimateMs: 30_000, after: ['a', 'b'] },
        ],
      }),
    );
    const result = await colony(['plan', '--tasks', file, '--json', '--sizes', '1,2,4', ...seeded]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as PlanReport;
    expect(report.source).toBe('file');
    expect(report.rows.map((r) => r.scheduleMs)).toEqual([150_000, 90_000, 90_000]);
    expect(report.recommendation?.p).toBe(2);
    const bad = await colony(['plan', '--tasks', join(dir, 'missing.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cannot read/);
  });

  it('names a run that does not exist and refuses two inputs at once', async () => {
    const missing = await colony(['plan', '--check', 'r-nosuchrun-000000']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such run: r-nosuchrun-000000/);
    const both = await colony(['plan', runs.solo, '--check', runs.solo]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give one of RUN, --tasks FILE, --check RUN, --check-eval DIR or --workflow FILE/);
    const stray = await colony(['plan', runs.solo, '--from', runs.solo]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/--from goes with --check/);
  });
});
