/**
 * `colony eval run` with a model per role (orchestrated lead and subagents), a workflow arm, and a
 * matched budget, on a bundled task with the simulated (`sim:`) model: real runs of the built CLI.
 * The planted truth decides each outcome, so the test knows which role's model did the work: the
 * subagents edit, so their model decides, whatever the lead's.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evalReport } from '../../../src/eval/report/write-eval-report.js';
import { runEval } from '../../../src/eval/run/index.js';
import { parseTrialLines } from '../../../src/eval/trial-record.js';

const BUNDLED = join(import.meta.dirname, '..', '..', '..', 'examples', 'eval-suite');

describe('colony eval run: roles, workflow arms, matched budgets', () => {
  const root = mkdtempSync(join(tmpdir(), 'colony-eval-roles-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const suite = join(root, 'suite');
  cpSync(join(BUNDLED, 'textkit-slugify'), join(suite, 'textkit-slugify'), { recursive: true });
  writeFileSync(
    join(root, 'fix.mjs'),
    'export default async function fix(w) {\n  const r = await w.agent("coder").run(w.args.goal);\n  return r.ok;\n}\n',
  );
  const arms = join(root, 'arms.json');
  writeFileSync(
    arms,
    JSON.stringify({
      v: 1,
      budget: { usd: 5, tokens: 1_000_000 },
      arms: [
        { name: 'solo', topology: 'solo', size: 1, solo: true, model: 'sim:p=1' },
        // The lead would fail and the subagents succeed: the subagents' model decides.
        {
          name: 'orch-sub-ok',
          topology: 'orchestrated',
          size: 1,
          model: 'sim:p=0',
          models: { subagent: 'sim:p=1' },
        },
        {
          name: 'orch-sub-bad',
          topology: 'orchestrated',
          size: 1,
          model: 'gpt-5',
          models: { lead: 'sim:p=1', subagent: 'sim:p=0' },
        },
        { name: 'wf', topology: 'workflow', size: 1, model: 'sim:p=1', program: 'fix.mjs' },
        // Its own budget lowers the matched one so far that the run stops at once.
        { name: 'starved', topology: 'solo', size: 1, model: 'sim:p=1', budgetTokens: 10 },
      ],
    }),
  );
  const out = join(root, 'out');
  const options = { suite, arms, trials: 1, out, concurrency: 2, sandbox: 'off' as const };

  it('runs each role with its model, a workflow program, and every arm under the matched budget', async () => {
    const result = await runEval(options);
    if (!result.ok) throw new Error(result.error);
    expect(result.value.ran).toBe(5);
    const { records, issues } = parseTrialLines(readFileSync(join(out, 'trials.jsonl'), 'utf8'));
    expect(issues).toEqual([]);
    const by = new Map(records.map((r) => [r.arm, r]));
    expect(by.get('solo')?.outcome).toBe('pass');
    expect(by.get('orch-sub-ok')?.outcome).toBe('pass');
    expect(by.get('orch-sub-bad')?.outcome).toBe('fail');
    expect(by.get('wf')?.outcome).toBe('pass');
    expect(by.get('starved')?.outcome).toBe('fail');
    // First green: the verify command passed during the run, no later than the run ended.
    for (const name of ['solo', 'orch-sub-ok', 'wf']) {
      const r = by.get(name);
      expect(r?.firstGreenMs, name).not.toBeNull();
      expect(r?.firstGreenMs ?? Number.POSITIVE_INFINITY, name).toBeLessThanOrEqual(r?.wallMs ?? 0);
    }
    const notes = readFileSync(join(out, 'notes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { arm: string; budget: unknown; note: string });
    const note = (arm: string) => notes.find((n) => n.arm === arm);
    expect(note('solo')?.budget).toEqual({ usd: 5, tokens: 1_000_000 });
    expect(note('starved')?.budget).toEqual({ usd: 5, tokens: 10 });
    expect(note('starved')?.note).toMatch(/budget/);
    // What eval report needs beside the records: the matched budget and the tasks' tags.
    expect(JSON.parse(readFileSync(join(out, 'arms.json'), 'utf8')).budget).toEqual({
      usd: 5,
      tokens: 1_000_000,
    });
    expect(JSON.parse(readFileSync(join(out, 'tasks.json'), 'utf8')).tasks['textkit-slugify'].tags).toContain(
      'repo:textkit',
    );
  }, 120_000);

  it('eval report shows the budget, warns about the arm that lowered it, and breaks down by tag', () => {
    const report = evalReport(out, { resamples: 200 });
    if (!report.ok) throw new Error(report.error);
    const { summary } = report.value;
    expect(summary.budget).toEqual({ usd: 5, tokens: 1_000_000 });
    expect(summary.arms.find((a) => a.name === 'starved')?.budget).toEqual({ usd: 5, tokens: 10 });
    expect(summary.warnings.join('\n')).toMatch(/arm "starved" ran under a lower budget/);
    expect(summary.arms.find((a) => a.name === 'solo')?.medianFirstGreenMs).not.toBeNull();
    expect(summary.byTag.map((t) => t.tag)).toEqual(['modules:1', 'repo:textkit', 'single']);
    expect(summary.byTag[0]?.arms.find((a) => a.arm === 'orch-sub-bad')?.passRate).toBe(0);
  });

  it('refuses arms with roles their topology does not have, before anything runs', async () => {
    const bad = join(root, 'bad-arms.json');
    writeFileSync(
      bad,
      JSON.stringify({
        v: 1,
        budget: { usd: 1 },
        arms: [
          { name: 'p', topology: 'peers', size: 2, model: 'sim:p=1', models: { integrator: 'sim:p=1' } },
          { name: 'q', topology: 'solo', size: 1, model: 'sim:p=1', budgetUsd: 3 },
        ],
      }),
    );
    const result = await runEval({ ...options, arms: bad, out: join(root, 'bad-out') });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatch(/arm "p": models.integrator: no role "integrator" in a peers arm/);
    expect(result.error).toMatch(/arm "q": budgetUsd: 3 is above the matched budget/);
  });
});
