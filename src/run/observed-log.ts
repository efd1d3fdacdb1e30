import type { EventInput, EventKind, StoredEvent } from '../core/events.js';
import type { EventLog, ReadOptions } from '../store/types.js';

/** Wraps an event log so every committed event is also handed to `onEvent` (live output of `colony run`). */
export function observeLog(log: EventLog, onEvent: (event: StoredEvent) => void): EventLog {
  return {
    async append<K extends EventKind>(event: EventInput<K>) {
      const stored = await log.append(event);
      onEvent(stored);
      return stored;
    },
    async appendMany(events: EventInput[]) {
      const stored = await log.appendMany(events);
      for (const event of stored) onEvent(event);
      return stored;
    },
    read: <K extends EventKind>(runId: string, options?: ReadOptions<K>) => log.read<K>(runId, options),
    verify: (runId) => log.verify(runId),
    flush: () => log.flush(),
  };
}
