/**
 * What `colony eval run` needs of an arm (arms.json, docs/eval.md): the model and the team to run.
 * arms.json keeps any other field as free configuration; the ones read here are checked, each
 * problem naming the arm and the field.
 */
import { z } from 'zod';
import { parseSimModelId } from '../../model/providers/sim-spec.js';
import type { Arm } from '../trial-record.js';

export const RUN_TOPOLOGIES = ['solo', 'peers', 'orchestrated'] as const;

const positiveInt = z.number().int().positive();

const runArmSchema = z.looseObject({
  name: z.string().min(1),
  topology: z.enum(RUN_TOPOLOGIES),
  size: positiveInt,
  /** A model id (`colony models`), or `sim:p=P` / `sim:truth=FILE` (simulated). */
  model: z.string().min(1),
  /** peers: how many work at once (default: size). */
  concurrency: positiveInt.optional(),
  maxSteps: positiveInt.optional(),
  budgetUsd: z.number().positive().optional(),
  budgetTokens: positiveInt.optional(),
  /** orchestrated: the acceptance check (a shell command) after the team finishes. */
  accept: z.string().min(1).optional(),
  /** A trial's run ends as a time-out after this many seconds (default 1800). */
  deadlineS: positiveInt.optional(),
});

export type RunArm = z.infer<typeof runArmSchema>;

/** The arms as `eval run` runs them, or every problem (one line each). */
export function runArmsOf(
  arms: readonly Arm[],
): { ok: true; arms: RunArm[] } | { ok: false; errors: string[] } {
  const out: RunArm[] = [];
  const errors: string[] = [];
  for (const arm of arms) {
    const parsed = runArmSchema.safeParse(arm);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        errors.push(`arm "${arm.name}": ${issue.path.join('.') || 'arm'}: ${issue.message}`);
      continue;
    }
    const a = parsed.data;
    if (a.topology === 'solo' && a.size !== 1) errors.push(`arm "${a.name}": size: a solo arm has size 1`);
    if (a.model.startsWith('sim:')) {
      const sim = parseSimModelId(a.model);
      if (!sim.ok) errors.push(`arm "${a.name}": model: ${sim.error}`);
      else if (sim.spec.task !== null)
        errors.push(`arm "${a.name}": model: the runner sets task= for each trial`);
    }
    if (a.model === 'scripted')
      errors.push(
        `arm "${a.name}": model: "scripted" only plays colony demo's scenarios; use sim:p=P for a simulated agent`,
      );
    out.push(a);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, arms: out };
}

/** Whether the arm's model is simulated (its results say nothing about a real model). */
export function isSimulated(arm: RunArm): boolean {
  return arm.model.startsWith('sim:');
}
