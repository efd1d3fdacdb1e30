/**
 * A session a live worker claimed from the queue but never started (src/fleet/stranded-sessions.ts):
 * when Postgres goes away while DBOS commits a claim, the commit can land with its answer lost, and
 * the rows stay PENDING under a worker that is alive and runs nothing of them. Nothing recovered them:
 * the owner waited for ever (a fleet test's run hung after a Postgres restart during a takeover).
 * Here the worker is paused while the owner enqueues both peers' sessions, the rows are made exactly
 * what such a claim leaves (PENDING, the worker's executor, a claim token), and the worker goes on:
 * it hands both back to the queue, takes them again, and the run finishes with both peers.
 */
import { describe, expect, it } from 'vitest';
import {
  fleetFixture,
  peersFleetRunArgs,
  runEvents,
  sessionRows,
  startOwner,
  until,
} from './fleet-harness.js';
import { fleetPeersPolicy } from './fleet-policy.js';

const fleet = fleetFixture({ model: { policy: fleetPeersPolicy(2) } });

const sessions = (database: string, runId: string) => sessionRows(fleet.db, database, runId);

describe('a session claimed by a live worker that never started it', () => {
  it('is handed back to the queue by that worker, and the run finishes with every peer', async () => {
    const database = 'stranded_claim';
    const {
      url,
      repo,
      env,
      workers: [worker],
    } = await fleet.start(database, {
      workers: ['w-strand'],
      files: { 'README.md': '# stranded\n', 'work/.keep': '' },
    });
    // Paused before the owner enqueues: it must not claim the sessions the ordinary way.
    worker.child.kill('SIGSTOP');
    let resumed = false;
    try {
      const owner = startOwner(peersFleetRunArgs(repo.dir, 2, 2, fleet.fakes.model.url), env);
      fleet.owners.push(owner.child);

      let runId = '';
      await until(async () => {
        const res = await fleet.db.sql('SELECT run_id FROM colony.runs LIMIT 1', database).catch(() => null);
        runId = (res?.rows[0]?.run_id as string | undefined) ?? '';
        return runId !== '' && (await sessions(database, runId).catch(() => [])).length === 2;
      }, 'both sessions enqueued');
      // What a claim whose commit's answer was lost leaves behind: the worker's, and never started.
      const claimed = await fleet.db.sql(
        `UPDATE dbos.workflow_status
            SET status = 'PENDING', executor_id = 'worker:w-strand', owner_xid = gen_random_uuid()::text,
                started_at_epoch_ms = (extract(epoch FROM now()) * 1000)::bigint
          WHERE workflow_uuid LIKE '${runId}/%' AND status = 'ENQUEUED'`,
        database,
      );
      expect(claimed.rowCount).toBe(2);
      worker.child.kill('SIGCONT');
      resumed = true;

      const code = await Promise.race([
        owner.exited,
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 90_000)),
      ]);
      const context = `${owner.stderr().slice(-2000)}\n${worker.stderr().slice(-2000)}\n${JSON.stringify(await sessions(database, runId))}`;
      expect(code, context).toBe(0);
      expect(JSON.parse(owner.stdout().trim().split('\n').pop() ?? '{}').status).toBe('succeeded');
      for (const peer of ['peer-1', 'peer-2'])
        expect(worker.stderr()).toContain(
          `${runId}/${peer} was claimed here but never started (the claim's answer was lost); handed back to the queue`,
        );

      const events = await runEvents(url, runId);
      const placed = events.filter((e) => e.kind === 'agent.placed');
      expect(placed.map((e) => [e.agent, e.data.worker, e.data.epoch]).sort()).toEqual([
        ['peer-1', 'w-strand', 1],
        ['peer-2', 'w-strand', 1],
      ]);
      const finished = events.filter((e) => e.kind === 'agent.finished');
      expect(finished.map((e) => [e.agent, e.data.status]).sort()).toEqual([
        ['peer-1', 'done'],
        ['peer-2', 'done'],
      ]);
    } finally {
      if (!resumed) worker.child.kill('SIGCONT');
    }
  }, 180_000);
});
