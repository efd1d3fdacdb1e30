/**
 * How one agent's session ended, wherever it ran: in the run's process or on a fleet worker, driven by
 * Colony's loop or by an external CLI. Peers, subagent tasks and fleet sessions all end with this.
 */
import type { AgentOutcome } from '../agent/loop.js';
import type { StoredEvent } from '../core/events.js';
import type { EventLog } from '../store/types.js';

export type AgentEnd =
  | {
      agent: string;
      started: true;
      outcome: AgentOutcome;
      /** A subagent task's own steps (the agent's step count runs on across its tasks). */
      steps?: number;
      /** The fleet worker that hosted the session (absent: the run's own process). */
      worker?: string;
    }
  | { agent: string; started: false; error: string; worker?: string };

/** An agent's outcome as its `agent.finished` event logged it (a resumed run reads ends from the log). */
export function loggedOutcome(event: StoredEvent<'agent.finished'>): AgentOutcome {
  const d = event.data;
  return {
    status: d.status,
    stopReason: d.stopReason as AgentOutcome['stopReason'],
    reason: d.reason,
    steps: d.steps,
    finalText: d.finalText,
  };
}

/** An agent's logged outcome, or null when it never finished (after a crash, ends come from the log). */
export async function readLoggedOutcome(
  log: EventLog,
  runId: string,
  agent: string,
): Promise<AgentOutcome | null> {
  const [finished] = await log.read(runId, { agent, kinds: ['agent.finished'], limit: 1 });
  return finished ? loggedOutcome(finished) : null;
}
