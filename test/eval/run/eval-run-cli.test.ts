/**
 * `colony eval run` as a user runs it (the built bin/colony.js): two trials at once, each in a child
 * process of its own (one process executes one run at a time), solo, peers and orchestrated arms,
 * per-task truths from a file, then
 * `colony eval report OUT --json` on what it wrote.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EvalSummary } from '../../../src/eval/report/summary-types.js';
import { parseTrialLines } from '../../../src/eval/trial-record.js';
import { colony } from '../../helpers/cli.js';

const BUNDLED = join(import.meta.dirname, '..', '..', '..', 'examples', 'eval-suite');

describe('colony eval run (built CLI, concurrent trials)', () => {
  const root = mkdtempSync(join(tmpdir(), 'colony-eval-run-cli-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs trials in child processes, records the truth per task, and eval report reads it', async () => {
    const suite = join(root, 'suite');
    for (const t of ['textkit-slugify', 'cartkit-discount'])
      cpSync(join(BUNDLED, t), join(suite, t), { recursive: true });
    const truth = join(root, 'truth.json');
    writeFileSync(truth, JSON.stringify({ tasks: { 'textkit-slugify': 1, 'cartkit-discount': 0 } }));
    const arms = join(root, 'arms.json');
    writeFileSync(
      arms,
      JSON.stringify({
        v: 1,
        arms: [
          {
            name: 'solo',
            topology: 'solo',
            size: 1,
            solo: true,
            model: `sim:truth=${encodeURIComponent(truth)}`,
          },
          { name: 'peers-2', topology: 'peers', size: 2, model: `sim:truth=${encodeURIComponent(truth)}` },
          {
            name: 'orch',
            topology: 'orchestrated',
            size: 2,
            model: `sim:truth=${encodeURIComponent(truth)}`,
          },
        ],
      }),
    );
    const out = join(root, 'out');
    const args = ['eval', 'run', '--suite', suite, '--arms', arms, '--trials', '1', '--out', out];
    const result = await colony([...args, '--concurrency', '2', '--sandbox', 'off']);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toMatch(
      /ran 6 trial\(s\) \(0 already recorded\): 3 pass, 3 fail, 0 timeout, 0 infra error/,
    );
    expect(result.stdout).toContain('SIMULATED arms (sim: model): solo, peers-2, orch');
    const { records, issues } = parseTrialLines(readFileSync(join(out, 'trials.jsonl'), 'utf8'));
    expect(issues).toEqual([]);
    for (const r of records)
      expect(r.outcome, `${r.arm} ${r.task}`).toBe(r.task === 'textkit-slugify' ? 'pass' : 'fail');
    expect(new Set(records.map((r) => r.runId)).size).toBe(6);
    // The orchestrated lead's subagents land their files through the merge queue.
    expect(records.filter((r) => r.arm === 'orch').every((r) => r.merges === 1)).toBe(true);

    const resumed = await colony([...args, '--sandbox', 'off']);
    expect(resumed.stdout).toMatch(/ran 0 trial\(s\) \(6 already recorded\)/);

    const report = await colony(['eval', 'report', out, '--json']);
    expect(report.code, report.stderr).toBe(0);
    const summary = JSON.parse(report.stdout) as EvalSummary;
    expect(summary.arms.map((a) => [a.name, a.passRate])).toEqual([
      ['solo', 0.5],
      ['peers-2', 0.5],
      ['orch', 0.5],
    ]);
  }, 90_000);
});
