/** An in-memory EventLog for the notifier's unit tests: appends get the next seq and a timestamp. */
import type { EventInput, EventKind, StoredEvent } from '../../src/core/events.js';
import type { EventLog, ReadOptions } from '../../src/store/types.js';

export interface MemoryLog extends EventLog {
  readonly events: StoredEvent[];
}

export function memoryLog(): MemoryLog {
  const events: StoredEvent[] = [];
  const store = (event: EventInput): StoredEvent => {
    const stored = {
      ...event,
      seq: events.length + 1,
      ts: new Date().toISOString(),
      hash: '',
      prevHash: '',
    } as StoredEvent;
    events.push(stored);
    return stored;
  };
  return {
    events,
    async append<K extends EventKind>(event: EventInput<K>) {
      return store(event) as StoredEvent<K>;
    },
    async appendMany(inputs: EventInput[]) {
      return inputs.map(store);
    },
    async read<K extends EventKind>(runId: string, options: ReadOptions<K> = {}) {
      return events.filter(
        (e) =>
          e.runId === runId &&
          e.seq > (options.afterSeq ?? 0) &&
          (!options.kinds || (options.kinds as EventKind[]).includes(e.kind)),
      ) as StoredEvent<K>[];
    },
    verify: async () => ({ ok: true, events: events.length }) as never,
    flush: async () => {},
  };
}
