/**
 * What `colony eval run` needs of an arm (arms.json, docs/eval.md): the model and the team to run.
 * arms.json keeps any other field as free configuration; the ones read here are checked, each
 * problem naming the arm and the field.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { parseSimModelId } from '../../model/providers/sim-spec.js';
import { type Arm, type EffectiveBudget, effectiveBudget, type MatchedBudget } from '../trial-record.js';

export const RUN_TOPOLOGIES = ['solo', 'peers', 'orchestrated', 'workflow'] as const;

/** The roles an arm may give a model of their own, per topology (what `colony run` supports). */
export const MODEL_ROLES: Record<(typeof RUN_TOPOLOGIES)[number], readonly string[]> = {
  solo: [],
  // Every peer (integrators too) runs the run's model: colony run has no per-peer model for built-in peers.
  peers: [],
  // The lead runs the run's model; subagents run their profile's (config profiles, colony.json).
  orchestrated: ['lead', 'subagent'],
  // Every step of a workflow program runs the run's model.
  workflow: [],
};

const positiveInt = z.number().int().positive();
const modelId = z.string().min(1);

const runArmSchema = z.looseObject({
  name: z.string().min(1),
  topology: z.enum(RUN_TOPOLOGIES),
  size: positiveInt,
  /** A model id (`colony models`), or `sim:p=P` / `sim:truth=FILE` (simulated): every role's default. */
  model: modelId,
  /** A model per role (MODEL_ROLES); the others run `model`. */
  models: z.record(z.string(), modelId).optional(),
  /** workflow: the program file, relative to arms.json. */
  program: z.string().min(1).optional(),
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

export type RunArm = z.infer<typeof runArmSchema> & {
  /** The limits the arm runs under: the matched budget, lowered by the arm's own. */
  budget: EffectiveBudget;
};

export interface RunArmsContext {
  /** arms.json's top-level budget (every arm runs under it). */
  budget?: MatchedBudget | null;
  /** The folder of arms.json: a workflow arm's program is relative to it. */
  armsDir?: string;
}

function modelProblem(id: string): string | null {
  if (id === 'scripted')
    return (
      '"scripted" only plays colony demo\'s fixed scenarios (its turns are written for the demo ' +
      'repository, not for an eval task), so it cannot attempt a task; use sim:p=P for a simulated agent'
    );
  if (!id.startsWith('sim:')) return null;
  const sim = parseSimModelId(id);
  if (!sim.ok) return sim.error;
  if (sim.spec.task !== null) return 'the runner sets task= for each trial';
  return null;
}

function armProblems(a: z.infer<typeof runArmSchema>, matched: MatchedBudget | null): string[] {
  const problems: string[] = [];
  if (a.topology === 'solo' && a.size !== 1) problems.push('size: a solo arm has size 1');
  const model = modelProblem(a.model);
  if (model) problems.push(`model: ${model}`);
  const roles = MODEL_ROLES[a.topology];
  for (const [role, id] of Object.entries(a.models ?? {})) {
    if (!roles.includes(role))
      problems.push(
        `models.${role}: no role "${role}" in a ${a.topology} arm (${roles.length > 0 ? `roles: ${roles.join(', ')}` : 'every agent runs model'})`,
      );
    const problem = modelProblem(id);
    if (problem) problems.push(`models.${role}: ${problem}`);
  }
  if (a.topology === 'workflow' && a.program === undefined)
    problems.push('program: a workflow arm names its program file (relative to arms.json)');
  if (a.topology !== 'workflow' && a.program !== undefined)
    problems.push(`program: only a workflow arm runs a program (this arm is ${a.topology})`);
  if (a.accept !== undefined && a.topology !== 'orchestrated')
    problems.push('accept: only an orchestrated arm has an acceptance step');
  if (matched?.usd !== undefined && a.budgetUsd !== undefined && a.budgetUsd > matched.usd)
    problems.push(
      `budgetUsd: ${a.budgetUsd} is above the matched budget (budget.usd ${matched.usd}); an arm may only lower it`,
    );
  if (matched?.tokens !== undefined && a.budgetTokens !== undefined && a.budgetTokens > matched.tokens)
    problems.push(
      `budgetTokens: ${a.budgetTokens} is above the matched budget (budget.tokens ${matched.tokens}); an arm may only lower it`,
    );
  return problems;
}

/** The arms as `eval run` runs them, or every problem (one line each). */
export function runArmsOf(
  arms: readonly Arm[],
  context: RunArmsContext = {},
): { ok: true; arms: RunArm[] } | { ok: false; errors: string[] } {
  const matched = context.budget ?? null;
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
    for (const problem of armProblems(a, matched)) errors.push(`arm "${a.name}": ${problem}`);
    const program =
      a.program === undefined || isAbsolute(a.program)
        ? a.program
        : resolve(context.armsDir ?? '.', a.program);
    if (program !== undefined && a.topology === 'workflow' && !existsSync(program))
      errors.push(`arm "${a.name}": program: ${program} does not exist`);
    out.push({
      ...a,
      ...(program !== undefined ? { program } : {}),
      budget: effectiveBudget(arm, matched),
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, arms: out };
}

/** Every model id the arm runs (its model and the per-role ones). */
export function armModels(arm: Pick<RunArm, 'model' | 'models'>): string[] {
  return [arm.model, ...Object.values(arm.models ?? {})];
}

/** Whether any of the arm's models is simulated (its results say nothing about a real model). */
export function isSimulated(arm: Pick<RunArm, 'model' | 'models'>): boolean {
  return armModels(arm).some((m) => m.startsWith('sim:'));
}
