/**
 * Opening the store for a long-running service (`colony worker`, `supervise`, `serve`): started next to
 * its database (a fleet's compose file, a boot script), it may start first. While the database does not
 * answer (refused, starting up, in recovery) the service waits for it, saying so once, instead of
 * exiting; a database that answers with an error (bad password, no such database) fails at once.
 */
import { DATABASE_WAIT_MS } from './database-away.js';
import { type OpenResult, type StoreOptions, tryOpenStore } from './store.js';

export interface WaitingOpenOptions extends StoreOptions {
  /** How long to wait for a database that does not answer yet (default 2 minutes; 0: not at all). */
  waitMs?: number;
  signal?: AbortSignal;
  /** Where the one "waiting" line and the "reached" line go. */
  say: (line: string) => void;
}

const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 2_000;

export async function openStoreWaiting(options: WaitingOpenOptions): Promise<OpenResult> {
  const { waitMs = DATABASE_WAIT_MS, signal, say, ...storeOptions } = options;
  const started = Date.now();
  let pause = FIRST_PAUSE_MS;
  let waiting = false;
  for (;;) {
    const opened = await tryOpenStore(storeOptions);
    if (opened.ok) {
      if (waiting) say(`database reached after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return opened;
    }
    const left = started + waitMs - Date.now();
    if (!opened.away || left <= 0 || signal?.aborted) {
      if (!waiting) return opened;
      const waited = `${Math.round((Date.now() - started) / 1000)} s`;
      return { ...opened, error: `${opened.error} (waited ${waited} for it to answer)` };
    }
    if (!waiting) {
      say(`waiting up to ${Math.round(waitMs / 1000)} s for the database to answer: ${opened.error}`);
      waiting = true;
    }
    await sleep(Math.min(pause, left), signal);
    pause = Math.min(MAX_PAUSE_MS, pause * 2);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
