/**
 * The run's spend as logged by every process: the sum of its `model.response` events, read
 * incrementally (only the events after the last one read). Reads are shared: a caller joins the next
 * read that starts after it asked, so 1,000 agents checking at once make one query, and each sees every
 * response logged before it asked.
 */
import { type SpendSource, totalTokens } from '../agent/budget.js';
import type { EventLog } from '../store/types.js';

export function loggedSpend(log: EventLog, runId: string): SpendSource {
  let afterSeq = 0;
  let usd = 0;
  let tokens = 0;
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const readNew = async () => {
    const events = await log.read(runId, { kinds: ['model.response'], afterSeq, slim: true });
    for (const event of events) {
      tokens += totalTokens(event.data.turn.usage);
      usd += event.data.turn.costUsd ?? 0;
      afterSeq = Math.max(afterSeq, event.seq);
    }
  };
  const start = (): Promise<void> => {
    running = readNew().finally(() => {
      running = null;
    });
    return running;
  };
  return {
    async read() {
      // A read already running may have started before this caller's question: wait for the next.
      if (running) {
        next ??= running.then(
          () => {
            next = null;
            return start();
          },
          () => {
            next = null;
            return start();
          },
        );
        await next;
      } else {
        await start();
      }
      return { usd, tokens };
    },
  };
}
