import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanReport } from '../../../src/eval/plan/index.js';
import { colony } from '../../helpers/cli.js';

describe('colony plan on a recorded orchestrated run', () => {
  it('derives the task graph, bounds and a recommendation from the scripted orchestrated demo', async () => {
    const demo = await colony(['demo', 'orchestrated', '--dir', mkdtempSync(join(tmpdir(), 'colony-plan-'))]);
    expect(demo.code, demo.stderr).toBe(0);
    const runId = /run (r-[0-9a-z]+-[0-9a-f]{6}): succeeded/.exec(demo.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');

    const json = await colony([
      'plan',
      runId,
      '--json',
      '--sizes',
      '1,2,4',
      '--seed',
      '3',
      '--samples',
      '50',
    ]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as PlanReport;
    const show = await colony(['show', runId, '--json']);
    const summary = JSON.parse(show.stdout) as {
      criticalSteps: number;
      totalSteps: number;
      wallClockMs: number;
    };

    expect(report.source).toBe('orchestrated');
    // The graph's step counts agree with the run's own CriticalSteps and total steps.
    expect(report.spanSteps).toBe(summary.criticalSteps);
    expect(report.workSteps).toBe(summary.totalSteps);
    expect(report.criticalPath[0]).toBe('lead#1');
    expect(report.workMs).toBeGreaterThanOrEqual(report.spanMs);
    expect(report.spanMs).toBeGreaterThan(0);
    expect(report.spanMs).toBeLessThanOrEqual(summary.wallClockMs);
    expect(report.rows.map((r) => r.p)).toEqual([1, 2, 4]);
    for (const row of report.rows) {
      expect(row.scheduleMs).toBeGreaterThanOrEqual(row.brentLowerMs - 1e-9);
      expect(row.scheduleMs).toBeLessThanOrEqual(row.brentUpperMs + 1e-9);
      expect(row.makespanMs.p10).toBeLessThanOrEqual(row.makespanMs.p50);
      expect(row.makespanMs.p50).toBeLessThanOrEqual(row.makespanMs.p90);
    }
    expect(report.rows[0]?.scheduleMs).toBe(report.workMs);
    expect([1, 2, 4]).toContain(report.recommendation?.p);

    // Same seed, same numbers; the text form has the table and the recommendation.
    const again = await colony([
      'plan',
      runId,
      '--json',
      '--sizes',
      '1,2,4',
      '--seed',
      '3',
      '--samples',
      '50',
    ]);
    expect(again.stdout).toBe(json.stdout);
    const text = await colony(['plan', runId, '--sizes', '1,2']);
    expect(text.stdout).toMatch(/brent low/);
    expect(text.stdout).toMatch(/recommended team size: [12] /);
  }, 120_000);

  it('rejects a bad --sizes as a usage error', async () => {
    const result = await colony(['plan', 'r-x', '--sizes', '2,zero']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--sizes must be a positive integer/);
  });
});
