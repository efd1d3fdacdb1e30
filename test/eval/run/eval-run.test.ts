/**
 * `colony eval run` end to end on bundled tasks with the simulated (`sim:`) model: real Colony runs
 * (solo, and peers of 2) whose agents make the reference fix or a wrong edit by a seeded draw, graded
 * with the hidden tests. The planted truth: p = 1 in one arm, p = 0 in the other, so every outcome is
 * known. Then resume (nothing runs again), an infra error for a task whose repository is missing, and
 * `eval report` on the result.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evalReport } from '../../../src/eval/report/write-eval-report.js';
import { runEval } from '../../../src/eval/run/index.js';
import { parseTrialLines } from '../../../src/eval/trial-record.js';

const BUNDLED = join(import.meta.dirname, '..', '..', '..', 'examples', 'eval-suite');
const TASKS = ['textkit-slugify', 'ledger-three-bugs'];

describe('colony eval run (simulated model)', () => {
  const root = mkdtempSync(join(tmpdir(), 'colony-eval-run-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const suite = join(root, 'suite');
  for (const t of TASKS) cpSync(join(BUNDLED, t), join(suite, t), { recursive: true });
  const arms = join(root, 'arms.json');
  writeFileSync(
    arms,
    JSON.stringify({
      v: 1,
      arms: [
        { name: 'solo', topology: 'solo', size: 1, solo: true, model: 'sim:p=1' },
        { name: 'peers-2', topology: 'peers', size: 2, model: 'sim:p=0' },
      ],
    }),
  );
  const out = join(root, 'out');
  const lines: string[] = [];
  // Each trial is a `colony run` process of the built CLI (npx tsc -p tsconfig.build.json first).
  const options = {
    suite,
    arms,
    trials: 2,
    out,
    concurrency: 2,
    sandbox: 'off' as const,
    log: (l: string) => lines.push(l),
  };

  it('runs every task × arm × trial, graded as the planted truth says', async () => {
    const result = await runEval(options);
    if (!result.ok) throw new Error(result.error);
    expect(result.value).toMatchObject({ ran: 8, skipped: 0, simulated: ['solo', 'peers-2'] });
    const { records, issues } = parseTrialLines(readFileSync(join(out, 'trials.jsonl'), 'utf8'));
    expect(issues).toEqual([]);
    expect(records).toHaveLength(8);
    for (const r of records) {
      expect(r.outcome, `${r.arm} ${r.task} #${r.trial}`).toBe(r.arm === 'solo' ? 'pass' : 'fail');
      expect(r.runId).toBeTruthy();
      expect(r.tokens.input + r.tokens.cachedInput).toBeGreaterThan(0);
      expect(r.costUsd).toBeGreaterThan(0);
    }
    const solo = records.filter((r) => r.arm === 'solo');
    expect(solo.every((r) => r.score === 1 && r.conflicts === 0)).toBe(true);
    // Peers land their (wrong or right) edits through the merge queue: one merge per file they changed.
    const peers = records.filter((r) => r.arm === 'peers-2');
    expect(peers.every((r) => r.merges >= 1 && r.score < 1 && r.score > 0)).toBe(true);
    expect(peers.filter((r) => r.task === 'ledger-three-bugs').every((r) => r.merges === 3)).toBe(true);
    expect(lines.some((l) => /SIMULATED/.test(l))).toBe(true);
    expect(lines.filter((l) => /^\[\d+\/8\]/.test(l))).toHaveLength(8);
  }, 120_000);

  it('resumes: a re-run skips the recorded trials and runs only new ones', async () => {
    const again = await runEval({ ...options, trials: 2 });
    if (!again.ok) throw new Error(again.error);
    expect(again.value).toMatchObject({ ran: 0, skipped: 8 });
    const before = readFileSync(join(out, 'trials.jsonl'), 'utf8');
    expect(before.trim().split('\n')).toHaveLength(8);
  });

  it('records an infra_error for a task whose repository is missing, and goes on', async () => {
    const broken = join(suite, 'gone');
    mkdirSync(broken);
    const spec = JSON.parse(readFileSync(join(suite, 'textkit-slugify', 'task.json'), 'utf8'));
    writeFileSync(
      join(broken, 'task.json'),
      JSON.stringify({
        ...spec,
        id: 'gone',
        repo: { git: join(root, 'no-such-repo'), commit: 'a'.repeat(40) },
        tags: ['repo:gone'],
      }),
    );
    cpSync(join(suite, 'textkit-slugify', 'hidden'), join(broken, 'hidden'), { recursive: true });
    const result = await runEval({ ...options, trials: 1 });
    if (!result.ok) throw new Error(result.error);
    expect(result.value).toMatchObject({ ran: 2, skipped: 4, outcomes: { infra_error: 2 } });
    const { records } = parseTrialLines(readFileSync(join(out, 'trials.jsonl'), 'utf8'));
    const gone = records.filter((r) => r.task === 'gone');
    expect(gone.map((r) => r.outcome)).toEqual(['infra_error', 'infra_error']);
    expect(lines.some((l) => /gone #0: infra_error .*checkout/.test(l))).toBe(true);
    const notes = readFileSync(join(out, 'notes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(notes).toHaveLength(10);
    expect(notes.find((n) => n.task === 'gone')?.note).toMatch(/^checkout: /);
  }, 60_000);

  it('makes a directory colony eval report reads: solo beats the team', () => {
    const report = evalReport(out, { resamples: 200 });
    if (!report.ok) throw new Error(report.error);
    const { summary } = report.value;
    const arm = (name: string) => summary.arms.find((a) => a.name === name);
    expect(arm('solo')?.passRate).toBe(1);
    expect(arm('peers-2')?.passRate).toBe(0);
    expect(summary.warnings.join('\n')).toMatch(/infra/);
  });
});
