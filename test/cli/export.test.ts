/**
 * `colony export` through the built CLI: the orchestrated demo's trajectory (the worked
 * example: lead turns of 1 + 7, 1 + 5 and 1 steps; 26 steps in all) to stdout and to a file, and the
 * usage errors: an unknown or missing format (exit 2) and an unknown run (exit 1).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DecisionRecord, EpisodeRecord, TrajectoryRecord } from '../../src/report/trajectory/index.js';
import { colony, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';

const parent = mkdtempSync(join(tmpdir(), 'colony-export-test-'));
let runId = '';

function records(text: string): TrajectoryRecord[] {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TrajectoryRecord);
}

describe('colony export', () => {
  beforeAll(async () => {
    const demo = await colony(['demo', 'orchestrated', '--dir', parent, '--json'], {
      env: NO_API_KEYS,
      timeoutMs: 240_000,
    });
    expect(demo.code, demo.stderr).toBe(0);
    runId = String(lastJsonLine(demo.stdout).runId);
  }, 300_000);

  it('writes the decisions and the episode as JSONL, to stdout or --out', async () => {
    const printed = await colony(['export', runId, '--format', 'trajectory']);
    expect(printed.code, printed.stderr).toBe(0);
    const lines = records(printed.stdout);
    const decisions = lines.filter((r): r is DecisionRecord => r.type === 'decision');
    expect(decisions.map((d) => d.parallel.tasks.length)).toEqual([3, 2, 0]);
    expect(decisions.map((d) => d.criticalSteps)).toEqual([1 + 7, 1 + 5, 1]);
    const episode = lines.at(-1) as EpisodeRecord;
    expect(episode.type).toBe('episode');
    const critical = 1 + 7 + (1 + 5) + 1;
    const total = 3 + (4 + 7 + 2) + (5 + 5);
    expect([episode.criticalSteps, episode.totalSteps]).toEqual([critical, total]);
    expect(episode.rewards).toEqual({ rParallel: 1 - critical / total, rFinish: 5 / 5, rPerf: null });

    const file = join(parent, 'trajectory.jsonl');
    const written = await colony(['export', runId, '--format=trajectory', '--out', file]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout.trim()).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(printed.stdout);
  });

  it('refuses an unknown or missing format (exit 2) and an unknown run (exit 1)', async () => {
    const unknown = await colony(['export', runId, '--format', 'csv']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('colony: export: unknown format "csv" (one of: trajectory)\n');
    const missing = await colony(['export', runId]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing --format/);
    const noRun = await colony(['export', 'no-such-run', '--format', 'trajectory']);
    expect(noRun.code).toBe(1);
    expect(noRun.stderr).toBe('colony: export: no such run: no-such-run (see colony runs)\n');
    expect(noRun.stdout).toBe('');
  });
});
