/**
 * Sessions a live worker claimed from the queue but never runs. DBOS claims queued workflows in one
 * transaction (PENDING, this executor, a claim token) and then starts them in the process; when the
 * database goes away while that transaction commits, the commit can land with its answer lost: the
 * worker saw an error and starts nothing, and the rows stay PENDING under an executor that is alive,
 * so nothing ever recovers them (DBOS recovers an executor's workflows only when it starts again or
 * is declared gone). The owner then waits for those sessions for ever — a fleet test's run hung so
 * after a Postgres restart during a takeover.
 *
 * The worker looks for its own PENDING sessions that no session of this process runs, and hands
 * each back to the queue once it has stayed so, under the same claim, for STRANDED_AFTER_MS: the
 * statement DBOS's own recovery runs, for that one row and that claim only. A session is safe to
 * run again (its agent replays its log; a finished one ends at once), and an execution of it still
 * recording its outcome under the old claim finds the claim gone and adopts the new one's.
 */
import type pg from 'pg';

/** How long a claim of this worker's must stay unrun before it is handed back. */
export const STRANDED_AFTER_MS = 10_000;

export interface ClaimedSession {
  workflowId: string;
  /** The claim's token (DBOS's owner_xid); a new claim of the same session has another. */
  claim: string | null;
}

/** This executor's PENDING sessions of `queue` (version `appVersion`), with their claim tokens. */
export async function claimedSessions(
  pool: pg.Pool,
  where: { executorId: string; queue: string; appVersion: string },
): Promise<ClaimedSession[]> {
  const res = await pool.query<{ workflow_uuid: string; owner_xid: string | null }>(
    `SELECT workflow_uuid, owner_xid FROM dbos.workflow_status
      WHERE status = 'PENDING' AND executor_id = $1 AND queue_name = $2 AND application_version = $3`,
    [where.executorId, where.queue, where.appVersion],
  );
  return res.rows.map((row) => ({ workflowId: row.workflow_uuid, claim: row.owner_xid }));
}

/** Back to the queue, if it is still PENDING under this executor and this claim; false otherwise. */
export async function requeueStranded(
  pool: pg.Pool,
  executorId: string,
  session: ClaimedSession,
): Promise<boolean> {
  const res = await pool.query(
    `UPDATE dbos.workflow_status
        SET status = 'ENQUEUED', owner_xid = NULL, started_at_epoch_ms = NULL,
            updated_at = (extract(epoch FROM now()) * 1000)::bigint
      WHERE workflow_uuid = $1 AND status = 'PENDING' AND executor_id = $2
        AND owner_xid IS NOT DISTINCT FROM $3`,
    [session.workflowId, executorId, session.claim],
  );
  return (res.rowCount ?? 0) > 0;
}

/**
 * Which claimed sessions have stayed unrun long enough: remembers when each (session, claim) was
 * first seen unrun, and forgets those that ran or changed hands.
 */
export class StrandedWatch {
  private readonly firstSeen = new Map<string, number>();

  constructor(private readonly afterMs = STRANDED_AFTER_MS) {}

  /** The claims not run here (`running` has the workflow ids this process runs) past `afterMs`. */
  due(claimed: readonly ClaimedSession[], running: ReadonlySet<string>, now: number): ClaimedSession[] {
    const seen = new Set<string>();
    const due: ClaimedSession[] = [];
    for (const session of claimed) {
      if (running.has(session.workflowId)) continue;
      const key = `${session.workflowId}\n${session.claim ?? ''}`;
      seen.add(key);
      const first = this.firstSeen.get(key) ?? now;
      this.firstSeen.set(key, first);
      if (now - first >= this.afterMs) due.push(session);
    }
    for (const key of this.firstSeen.keys()) if (!seen.has(key)) this.firstSeen.delete(key);
    return due;
  }

  forget(session: ClaimedSession): void {
    this.firstSeen.delete(`${session.workflowId}\n${session.claim ?? ''}`);
  }
}
