/**
 * The coverage validation (test/eval/sim/) runs the statistics on the truth model's records, not on
 * real runs: a thousand seeds of real runs would take hours. This test makes the result transfer to
 * `colony eval run` with the `sim:` provider, in two steps:
 * 1. through real runs (the built CLI, solo and peers, per-task truths from files): every recorded
 *    outcome is exactly the one the trial's seeded draw plants (pass iff draw < p) — the harness
 *    (checkout, team, merges, grading, records) adds no error of its own;
 * 2. without runs: those draws, with the seeds eval run gives trials (arm/task/trial), pass at the
 *    stated rate and independently across arms — Bernoulli(p) per trial, as the truth model draws.
 * So eval run's records are distributed as the truth model's, and the measured coverage holds for them.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runEval } from '../../../src/eval/run/index.js';
import { trialModel } from '../../../src/eval/run/trial-model.js';
import { parseTrialLines } from '../../../src/eval/trial-record.js';
import { simPlanOf } from '../../../src/model/providers/sim.js';
import { parseSimModelId } from '../../../src/model/providers/sim-spec.js';

const BUNDLED = join(import.meta.dirname, '..', '..', '..', 'examples', 'eval-suite');
const TASKS = ['textkit-slugify', 'ledger-parse-money', 'cartkit-discount'];

const root = mkdtempSync(join(tmpdir(), 'colony-eval-agree-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const suite = join(root, 'suite');
for (const t of TASKS) cpSync(join(BUNDLED, t), join(suite, t), { recursive: true });
const truthSolo = join(root, 'truth-solo.json');
const truthPeers = join(root, 'truth-peers.json');
writeFileSync(
  truthSolo,
  JSON.stringify({ tasks: { 'textkit-slugify': 0.3, 'ledger-parse-money': 0.5, 'cartkit-discount': 0.8 } }),
);
writeFileSync(truthPeers, JSON.stringify({ default: 0.6, tasks: { 'ledger-parse-money': 0.25 } }));
const ARMS = [
  { name: 'solo', topology: 'solo' as const, size: 1, solo: true, model: `sim:truth=${truthSolo}` },
  { name: 'peers-2', topology: 'peers' as const, size: 2, model: `sim:truth=${truthPeers}&seed=7` },
];

/** What the truth plants for one trial: pass iff the trial's seeded draw is below the task's p. */
function planted(arm: (typeof ARMS)[number], task: string, trial: number): { pass: boolean; p: number } {
  const spec = parseSimModelId(trialModel(arm, join(suite, task), task, trial));
  if (!spec.ok) throw new Error(spec.error);
  const plan = simPlanOf(spec.spec);
  if (!plan.ok) throw new Error(plan.error);
  return { pass: plan.value.succeed, p: plan.value.p };
}

describe('eval run agrees with the sim truth, trial by trial', () => {
  it('records exactly the planted outcome of every trial (real runs)', async () => {
    const arms = join(root, 'arms.json');
    writeFileSync(arms, JSON.stringify({ v: 1, arms: ARMS }));
    const out = join(root, 'out');
    const trials = 3;
    const result = await runEval({ suite, arms, trials, out, concurrency: 2, sandbox: 'off' });
    if (!result.ok) throw new Error(result.error);
    const { records, issues } = parseTrialLines(readFileSync(join(out, 'trials.jsonl'), 'utf8'));
    expect(issues).toEqual([]);
    expect(records).toHaveLength(ARMS.length * TASKS.length * trials);
    const disagreements = records.flatMap((r) => {
      const arm = ARMS.find((a) => a.name === r.arm);
      if (!arm) return [`unknown arm ${r.arm}`];
      const want = planted(arm, r.task, r.trial).pass ? 'pass' : 'fail';
      return r.outcome === want ? [] : [`${r.arm} ${r.task} #${r.trial}: ${r.outcome}, planted ${want}`];
    });
    const passes = records.filter((r) => r.outcome === 'pass').length;
    console.log(
      `eval run vs planted truth: ${records.length - disagreements.length} of ${records.length} trials agree (${passes} pass, ${records.length - passes} fail)`,
    );
    expect(disagreements).toEqual([]);
    // Both outcomes occur, so the agreement is not a constant's.
    expect(new Set(records.map((r) => r.outcome))).toEqual(new Set(['pass', 'fail']));
  }, 150_000);

  it('plants Bernoulli(p) per trial, independently across arms (no runs)', () => {
    const n = 3000;
    for (const task of TASKS) {
      let passes = { solo: 0, peers: 0 };
      let both = 0;
      let p = { solo: 0, peers: 0 };
      for (let trial = 0; trial < n; trial++) {
        const s = planted(ARMS[0] as (typeof ARMS)[number], task, trial);
        const q = planted(ARMS[1] as (typeof ARMS)[number], task, trial);
        p = { solo: s.p, peers: q.p };
        passes = { solo: passes.solo + Number(s.pass), peers: passes.peers + Number(q.pass) };
        if (s.pass && q.pass) both++;
      }
      // 4 standard errors: fails for a biased or coupled draw, not by chance (about 1 in 16,000).
      const se = (x: number) => 4 * Math.sqrt((x * (1 - x)) / n);
      expect(Math.abs(passes.solo / n - p.solo), `${task} solo`).toBeLessThan(se(p.solo));
      expect(Math.abs(passes.peers / n - p.peers), `${task} peers`).toBeLessThan(se(p.peers));
      expect(Math.abs(both / n - p.solo * p.peers), `${task} both`).toBeLessThan(se(p.solo * p.peers));
    }
  });
});
