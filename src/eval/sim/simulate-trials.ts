/**
 * Draws trial records from the `sim:` truth model (SIMULATED — no model is called). Deterministic for
 * a seed. Only the pass/fail draw carries the truth the statistics are checked against; steps,
 * latency, tokens and cost are plausible by-products so the report has something to draw.
 */
import { createRng, type Rng } from '../stats/rng.js';
import type { Arm, TrialRecord } from '../trial-record.js';
import type { SimArm, SimTask, SimTruth } from './sim-truth.js';

export interface SimulateOptions {
  /** Trials per (arm, task). */
  trials: number;
  seed: number;
}

function between(rng: Rng, lo: number, hi: number): number {
  return lo + (hi - lo) * rng.next();
}

function simTrial(rng: Rng, arm: SimArm, task: SimTask, trial: number, truth: SimTruth): TrialRecord {
  const p = task.pass[arm.name] ?? 0;
  const steps = Math.max(
    1,
    Math.round(task.steps * between(rng, 0.7, 1.3) + arm.coordinationSteps * (arm.size - 1)),
  );
  const serial = steps * (1 - arm.parallelShare);
  const criticalSteps = Math.max(1, Math.ceil(serial + (steps - serial) / arm.size));
  const wallMs = Math.round(criticalSteps * arm.stepMs * between(rng, 0.8, 1.2));
  const infra = rng.next() < truth.infraErrorRate;
  const passed = rng.next() < p;
  const timedOut = !passed && rng.next() < truth.timeoutShare;
  const outcome = infra ? 'infra_error' : passed ? 'pass' : timedOut ? 'timeout' : 'fail';
  const merges = arm.size > 1 ? rng.int(arm.size) + 1 : 0;
  return {
    v: 1,
    arm: arm.name,
    task: task.task,
    repo: task.repo,
    trial,
    outcome,
    score: outcome === 'pass' ? 1 : Math.round(between(rng, 0, 0.9) * 100) / 100,
    wallMs,
    firstGreenMs: outcome === 'pass' ? Math.round(wallMs * between(rng, 0.6, 0.95)) : null,
    tokens: {
      input: steps * arm.tokensPerStep.input,
      cachedInput: steps * arm.tokensPerStep.cachedInput,
      output: steps * arm.tokensPerStep.output,
    },
    costUsd: Math.round(steps * arm.costPerStepUsd * 1e6) / 1e6,
    criticalSteps,
    parallelism: Math.round((steps / criticalSteps) * 100) / 100,
    merges,
    conflicts: rng.int(merges + 1) === merges && merges > 0 ? 1 : 0,
    runId: null,
  };
}

/** Every (arm, task, trial) of the truth model, in that order. */
export function simulateTrials(truth: SimTruth, options: SimulateOptions): TrialRecord[] {
  const rng = createRng(options.seed);
  const records: TrialRecord[] = [];
  for (const arm of truth.arms)
    for (const task of truth.tasks)
      for (let t = 0; t < options.trials; t++) records.push(simTrial(rng, arm, task, t, truth));
  return records;
}

/** The arms file of a simulated eval (what `DIR/arms.json` holds), labelled as simulated. */
export function simArms(truth: SimTruth): Arm[] {
  return truth.arms.map((a) => ({
    name: a.name,
    topology: a.topology,
    size: a.size,
    ...(a.solo ? { solo: true } : {}),
    model: 'sim:truth-model',
  }));
}
