/**
 * The scripted model of the orchestrated test in fleet.test.ts, served by the fake provider over HTTP.
 * Stateless (any worker can answer any subagent's next turn after a takeover): each answer follows
 * from the request alone. The lead creates `writers` coder subagents and one explorer, assigns each a
 * task in one turn, then gives the first writer a second task, then answers. A writer's task writes
 * work/<name>/<k>.txt (k: its task number), asks to merge it and answers; the explorer lists files.
 * It is the soak's policy (bench/lib/soak-policy.ts) for a lead and its subagents: one copy of it.
 */
import { SOAK_FILES, soakPolicy, soakWriterName } from '../../bench/lib/soak-policy.js';
import type { ScriptedPolicy } from '../../src/model/index.js';

export const writerName = soakWriterName;

export function orchestratedTasksPolicy(writers = 2): ScriptedPolicy {
  return soakPolicy(SOAK_FILES, writers);
}
