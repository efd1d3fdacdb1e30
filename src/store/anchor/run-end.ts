/**
 * The anchor written when a run ends. It never fails the run: an anchor that cannot be written is a
 * `warning` event in the run's log (and so a line on the run's output).
 */

import type { Store } from '../store.js';
import type { EventLog } from '../types.js';
import { anchorRun } from './anchor-run.js';

export async function anchorFinishedRun(
  store: Store,
  runId: string,
  log: EventLog = store.log,
): Promise<void> {
  try {
    const anchored = await anchorRun(store, runId);
    if (anchored.ok) return;
    await log.append({
      runId,
      agent: null,
      kind: 'warning',
      data: { message: `audit anchor not written: ${anchored.error}` },
    });
  } catch (e) {
    await log
      .append({
        runId,
        agent: null,
        kind: 'warning',
        data: { message: `audit anchor not written: ${(e as Error).message}` },
      })
      .catch(() => {});
  }
}
