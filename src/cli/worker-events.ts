/**
 * The events of a fleet run's agents that run on workers (`colony run --workers`), for the owner's
 * live output. A worker appends them to the shared log from its own process, so they never pass the
 * owner's observed log (run/observed-log.ts); the owner reads them back from the log instead: every
 * event of an agent that a worker placed (`agent.placed`, which the worker logs first), in log order,
 * a few times a second. A resumed owner shows what happens from now on: the log so far only tells
 * it which agents are on workers (their sessions outlive an owner).
 */
import type { StoredEvent } from '../core/events.js';
import type { Store } from '../store/index.js';

const POLL_MS = 300;

export interface WorkerEventTail {
  /** Reads what is left (the run has ended) and stops. */
  stop(): Promise<void>;
}

export async function tailWorkerEvents(
  store: Store,
  runId: string,
  deliver: (event: StoredEvent) => void,
  options: { skipHistory: boolean },
): Promise<WorkerEventTail> {
  const placed = new Set<string>();
  let afterSeq = 0;
  if (options.skipHistory)
    for (const event of await store.log.read(runId, { slim: true })) {
      afterSeq = event.seq;
      if (event.kind === 'agent.placed' && event.agent) placed.add(event.agent);
    }
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();
  const poll = async () => {
    try {
      for (const event of await store.log.read(runId, { afterSeq })) {
        afterSeq = event.seq;
        if (!event.agent) continue;
        if (event.kind === 'agent.placed') placed.add(event.agent);
        if (placed.has(event.agent)) deliver(event);
      }
    } catch {
      // A failed read only delays these lines; the run reports real failures itself.
    }
  };
  const timer = setInterval(() => {
    if (!stopped) busy = busy.then(poll);
  }, POLL_MS);
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await busy;
      await poll();
    },
  };
}
