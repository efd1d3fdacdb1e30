/**
 * The model id one trial runs with: the arm's, except that a simulated (`sim:`) model gets the task
 * folder and a seed of its own (the arm's seed, arm, task and trial), so every trial draws once,
 * reproducibly, and arms draw independently. A role's model (`models`) gets the same seed: the roles
 * of one trial share its draw, and the role that edits decides the outcome.
 */
import { parseSimModelId, simModelId } from '../../model/providers/sim-spec.js';
import type { RunArm } from './run-arm.js';

export function trialModelId(
  model: string,
  armName: string,
  taskDir: string,
  taskId: string,
  trial: number,
): string {
  if (!model.startsWith('sim:')) return model;
  const parsed = parseSimModelId(model);
  if (!parsed.ok) return model; // runArmsOf refused it already; the run will say why.
  const { spec } = parsed;
  return simModelId({ ...spec, task: taskDir, seed: `${spec.seed}/${armName}/${taskId}/${trial}` });
}

export function trialModel(
  arm: Pick<RunArm, 'model' | 'name'>,
  taskDir: string,
  taskId: string,
  trial: number,
): string {
  return trialModelId(arm.model, arm.name, taskDir, taskId, trial);
}
