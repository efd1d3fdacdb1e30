/**
 * Simulated arms: an arm whose model, or any role's model, is a `sim:` id ran a simulated agent (no
 * model was called; costs are the sim model's made-up prices). The report says so wherever it shows
 * such an arm, so a simulated result is never read as a real one.
 */
import { isSimModelId } from '../../model/providers/sim-spec.js';
import type { Arm } from '../trial-record.js';

/** Whether the arm (as written in arms.json) runs a `sim:` model in any role. */
export function armIsSimulated(arm: Arm): boolean {
  const roles = arm.models;
  const models = [arm.model, ...(typeof roles === 'object' && roles !== null ? Object.values(roles) : [])];
  return models.some((m) => typeof m === 'string' && isSimModelId(m));
}

/** An arm's name as the report shows it: "peers-2 (simulated)" for a simulated arm. */
export function armLabel(arm: { name: string; simulated: boolean }): string {
  return arm.simulated ? `${arm.name} (simulated)` : arm.name;
}

/** The first line of the answer when any arm is simulated; null when none is. */
export function simulatedHeadline(arms: readonly { name: string; simulated: boolean }[]): string | null {
  const names = arms.filter((a) => a.simulated).map((a) => a.name);
  if (names.length === 0) return null;
  const all = names.length === arms.length;
  const one = all || names.length === 1;
  const subject = all ? (arms.length === 1 ? names.join('') : 'every arm') : names.join(', ');
  const their = names.length === 1 ? 'its' : 'their';
  return (
    `SIMULATED: ${subject} ${one ? 'uses' : 'use'} a sim: model (no model was called): ${their} results ` +
    `check the harness and the statistics, not a model or a team, and ${their} costs come from made-up prices.`
  );
}

/** The label of the arm named `name` among `arms` (the name itself when it is not one of them). */
export function labelOf(arms: readonly { name: string; simulated: boolean }[], name: string): string {
  const arm = arms.find((a) => a.name === name);
  return arm ? armLabel(arm) : name;
}
