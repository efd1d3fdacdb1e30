/**
 * When each peer last did something: every event a peer appends (model response, tool call, claim,
 * message) counts as progress. A peer waiting inside `merge_request` is waiting for the queue (or an
 * integrator), which is the run's progress, not the peer's stall.
 */
import type { EventInput, EventKind } from '../../core/events.js';
import type { EventLog } from '../../store/types.js';

const WAITING_TOOLS = new Set(['merge_request']);

export interface PeerActivity {
  log: EventLog;
  /** ms timestamp of the agent's last event (or of `touch`), undefined if none yet. */
  lastAt(agent: string): number | undefined;
  /** True while the agent waits in a tool whose wait is not its own (merge_request). */
  waiting(agent: string): boolean;
  touch(agent: string, at?: number): void;
}

export function trackActivity(log: EventLog, onAppend?: (event: EventInput) => void): PeerActivity {
  const last = new Map<string, number>();
  const waitingIn = new Map<string, string>();
  const note = (event: EventInput) => {
    onAppend?.(event);
    if (!event.agent) return;
    last.set(event.agent, Date.now());
    if (event.kind === 'tool.started') {
      const name = event.data.name;
      if (WAITING_TOOLS.has(name)) waitingIn.set(event.agent, name);
    } else if (event.kind === 'tool.finished') waitingIn.delete(event.agent);
  };
  return {
    log: {
      append<K extends EventKind>(event: EventInput<K>) {
        note(event);
        return log.append(event);
      },
      appendMany(events: EventInput[]) {
        for (const event of events) note(event);
        return log.appendMany(events);
      },
      read: (runId, options) => log.read(runId, options),
      verify: (runId) => log.verify(runId),
      flush: () => log.flush(),
    },
    lastAt: (agent) => last.get(agent),
    waiting: (agent) => waitingIn.has(agent),
    touch: (agent, at = Date.now()) => {
      last.set(agent, at);
    },
  };
}
