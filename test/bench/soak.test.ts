/**
 * The soak (bench/soak.ts) for 2 minutes with a fixed seed: fleet runs on two workers and one Debian
 * Postgres while workers, owners and Postgres are killed. Whatever was killed, every run finishes
 * succeeded, no completed model call is made twice, every landed commit is on the run's result branch
 * and every run's chain verifies. Spawns the built CLI (bin/colony.js → dist/): build dist first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BenchCleanup } from '../../bench/lib/cleanup.js';
import { runSoak } from '../../bench/lib/soak.js';

const SEED = 7;
const cleanup = new BenchCleanup(() => {});
const dir = mkdtempSync(join(tmpdir(), 'colony-soak-test-'));

afterAll(async () => {
  await cleanup.run();
  rmSync(dir, { recursive: true, force: true });
});

describe('the soak (issue 30)', () => {
  it('2 minutes of fleet runs under kill -9 of workers and owners and Postgres crashes: nothing repeated or lost', async () => {
    const lines: string[] = [];
    const report = await runSoak({
      minutes: 2,
      seed: SEED,
      dir,
      cleanup,
      say: (line) => lines.push(line),
    });
    if (!report.ok) console.log(lines.join('\n'));
    expect(report.runsStarted).toBeGreaterThan(0);
    expect(report.faults.worker).toBeGreaterThan(0);
    expect(report.faults.owner).toBeGreaterThan(0);
    expect(report.faults.postgres).toBeGreaterThan(0);
    expect(report.runs.flatMap((r) => r.repeatedCalls)).toEqual([]);
    expect(report.runs.flatMap((r) => r.lostCommits)).toEqual([]);
    expect(report.runs.flatMap((r) => r.missingFiles)).toEqual([]);
    expect(report.runs.filter((r) => !r.verified).map((r) => r.runId)).toEqual([]);
    expect(report.runs.filter((r) => r.seqGaps).map((r) => r.runId)).toEqual([]);
    // A worker never crashes (an unhandled rejection while the database was away once did).
    expect(report.workerCrashes).toBe(0);
    expect(report.runs.filter((r) => r.status !== 'succeeded').map((r) => `${r.runId} ${r.status}`)).toEqual(
      [],
    );
  }, 1_500_000);
});
