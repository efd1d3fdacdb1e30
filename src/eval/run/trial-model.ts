/**
 * The model id one trial runs with: the arm's, except that a simulated (`sim:`) model gets the task
 * folder and a seed of its own (the arm's seed, arm, task and trial), so every trial draws once,
 * reproducibly, and arms draw independently.
 */
import { parseSimModelId, simModelId } from '../../model/providers/sim-spec.js';
import type { RunArm } from './run-arm.js';

export function trialModel(arm: RunArm, taskDir: string, taskId: string, trial: number): string {
  if (!arm.model.startsWith('sim:')) return arm.model;
  const parsed = parseSimModelId(arm.model);
  if (!parsed.ok) return arm.model; // runArmsOf refused it already; the run will say why.
  const { spec } = parsed;
  return simModelId({ ...spec, task: taskDir, seed: `${spec.seed}/${arm.name}/${taskId}/${trial}` });
}
