/**
 * When each peer last did something: every event a peer appends (model response, tool call, claim,
 * message) counts as progress. A peer inside a tool call is not idle either: `merge_request` waits for
 * the queue (or an integrator), which is the run's progress, and `bash` may run a long test suite —
 * every tool has its own time-out, and a nudge would only be read at the next model call anyway. So
 * what the watchdog measures is the time outside tools: a model call that does not come back, or a
 * loop that makes no calls.
 */
import type { EventInput, EventKind } from '../../core/events.js';
import type { EventLog } from '../../store/types.js';

export interface PeerActivity {
  log: EventLog;
  /** ms timestamp of the agent's last event (or of `touch`), undefined if none yet. */
  lastAt(agent: string): number | undefined;
  /** True while the agent is inside a tool call. */
  waiting(agent: string): boolean;
  touch(agent: string, at?: number): void;
}

export function trackActivity(log: EventLog, onAppend?: (event: EventInput) => void): PeerActivity {
  const last = new Map<string, number>();
  // Tool calls in flight per agent (consecutive `parallel` tools run together).
  const inTools = new Map<string, number>();
  const note = (event: EventInput) => {
    onAppend?.(event);
    if (!event.agent) return;
    last.set(event.agent, Date.now());
    if (event.kind === 'tool.started') inTools.set(event.agent, (inTools.get(event.agent) ?? 0) + 1);
    else if (event.kind === 'tool.finished') {
      const left = (inTools.get(event.agent) ?? 1) - 1;
      if (left > 0) inTools.set(event.agent, left);
      else inTools.delete(event.agent);
    }
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
    waiting: (agent) => inTools.has(agent),
    touch: (agent, at = Date.now()) => {
      last.set(agent, at);
    },
  };
}
