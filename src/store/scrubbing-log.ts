/**
 * The store boundary for secrets: every event appended through this log is scrubbed first (known
 * secret values, their base64 forms, URL passwords), whoever builds it — model errors, setup output,
 * merge rejections and messages included, not only the agent loop's own events.
 */
import type { EventInput, EventKind } from '../core/events.js';
import type { Scrubber } from '../core/secrets.js';
import type { EventLog, ReadOptions } from './types.js';

export function scrubbingLog(log: EventLog, scrubber: Scrubber): EventLog {
  const scrubbed = <K extends EventKind>(event: EventInput<K>): EventInput<K> => ({
    ...event,
    data: scrubber.scrubValue(event.data),
  });
  return {
    append: (event) => log.append(scrubbed(event)),
    appendMany: (events) => log.appendMany(events.map(scrubbed)),
    read: <K extends EventKind>(runId: string, options?: ReadOptions<K>) => log.read<K>(runId, options),
    verify: (runId) => log.verify(runId),
    flush: () => log.flush(),
  };
}
