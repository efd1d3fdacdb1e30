/**
 * The `sim:` truth model — SIMULATED, NOT A MODEL RUN. It states what a simulated agent team achieves
 * on each task: the true chance that a trial passes, the steps one agent needs, each step's latency
 * and cost. Trials drawn from it (simulate-trials.ts) have a known truth, which is how the statistics
 * of `colony eval report` are validated (coverage and power over many seeds). A later `sim:` model
 * provider will act out the same model inside real Colony runs.
 */

export interface SimArm {
  name: string;
  topology: string;
  /** Agents in the team. */
  size: number;
  solo?: boolean;
  /** Share of a task's steps that can run in parallel across the team (Amdahl); the rest is serial. */
  parallelShare: number;
  /** Extra steps each agent beyond the first adds (coordination: reading the spec, claims, merges). */
  coordinationSteps: number;
  /** Mean latency of one step (one model call and its tools). */
  stepMs: number;
  costPerStepUsd: number;
  tokensPerStep: { input: number; cachedInput: number; output: number };
}

export interface SimTask {
  task: string;
  repo: string;
  /** Steps one agent needs for the task. */
  steps: number;
  /** The true chance that one trial passes, per arm name. */
  pass: Record<string, number>;
}

export interface SimTruth {
  label: 'sim';
  arms: SimArm[];
  tasks: SimTask[];
  /** Share of failed trials that are recorded as time-outs (a failure either way; the truth is unchanged). */
  timeoutShare: number;
  /** Chance that a trial is an infrastructure error (left out of every rate, like a real harness error). */
  infraErrorRate: number;
}

/** A simulated arm with plausible defaults: a step takes ~20 s and costs ~$0.02. */
export function simArm(name: string, size: number, overrides: Partial<SimArm> = {}): SimArm {
  return {
    name,
    topology: size === 1 ? 'solo' : 'peers',
    size,
    ...(size === 1 ? { solo: true } : {}),
    parallelShare: 0.7,
    coordinationSteps: 4,
    stepMs: 20_000,
    costPerStepUsd: 0.02,
    tokensPerStep: { input: 3_000, cachedInput: 12_000, output: 600 },
    ...overrides,
  };
}
