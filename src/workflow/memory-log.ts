/**
 * An event log in memory: what `colony plan --workflow` runs a program against (nothing is stored,
 * no Postgres), and what engine tests drive the real engine with. Events get a seq and an epoch
 * timestamp; there is no hash chain to verify.
 */
import type { EventInput, StoredEvent } from '../core/events.js';
import type { EventLog } from '../store/types.js';

export function memoryLog(initial: readonly StoredEvent[] = []): EventLog & { events: StoredEvent[] } {
  const events: StoredEvent[] = [...initial];
  const append = async (event: EventInput) => {
    const stored = {
      ...event,
      seq: events.length + 1,
      ts: new Date(0).toISOString(),
      hash: '',
      prevHash: '',
    } as unknown as StoredEvent;
    events.push(stored);
    return stored;
  };
  return {
    events,
    append: append as EventLog['append'],
    appendMany: async (list) => Promise.all(list.map(append)),
    read: (async (_runId: string, options?: { kinds?: string[] }) =>
      events.filter((e) => !options?.kinds || options.kinds.includes(e.kind))) as EventLog['read'],
    verify: async () => ({ ok: true, events: events.length }) as never,
    flush: async () => {},
  };
}
