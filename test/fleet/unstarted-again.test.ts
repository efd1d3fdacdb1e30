/**
 * A session that ends before its agent started is not the agent's end while the owner still wants it
 * (issue 30's soak: after an owner kill and a Postgres restart during the resume, one peer's session
 * ended in DBOS unstarted and the run went on without that peer). Here a worker takes both peers'
 * sessions while the fleet's row says an earlier owner stopped the run: both end "the run ended
 * first". The owner (paused meanwhile, so the order is certain) hands them to the fleet again under
 * the next session ids, and the run finishes with both peers.
 */
import { describe, expect, it } from 'vitest';
import {
  fleetFixture,
  peersFleetRunArgs,
  runEvents,
  sessionRows,
  startOwner,
  startWorker,
  until,
} from './fleet-harness.js';
import { fleetPeersPolicy } from './fleet-policy.js';

const fleet = fleetFixture({ model: { policy: fleetPeersPolicy(2) } });

const sessions = (database: string, runId: string) => sessionRows(fleet.db, database, runId);

describe('a fleet session that ended before its agent started', () => {
  it('is handed to the fleet again, and the run finishes with every peer', async () => {
    const database = 'unstarted_again';
    const { url, repo, env } = await fleet.start(database, {
      workers: [],
      files: { 'README.md': '# again\n', 'work/.keep': '' },
    });
    const owner = startOwner(peersFleetRunArgs(repo.dir, 2, 2, fleet.fakes.model.url), env);
    fleet.owners.push(owner.child);

    // Both sessions are in the queue, and no worker has joined yet.
    let runId = '';
    await until(async () => {
      const res = await fleet.db.sql('SELECT run_id FROM colony.runs LIMIT 1', database).catch(() => null);
      runId = (res?.rows[0]?.run_id as string | undefined) ?? '';
      return runId !== '' && (await sessions(database, runId).catch(() => [])).length === 2;
    }, 'both sessions enqueued');

    // The owner waits, paused; the fleet's row says the run was stopped (as an earlier owner that
    // closed the run leaves it), and a worker takes both sessions: both end before they start.
    owner.child.kill('SIGSTOP');
    try {
      await fleet.db.sql(
        `UPDATE colony.fleet_runs SET stop_reason = 'an earlier owner stopped it', stop_status = 'stopped'
          WHERE run_id = '${runId}'`,
        database,
      );
      const worker = startWorker('w-again', { COLONY_DATABASE_URL: url }, { slots: 2 });
      fleet.workers.push(worker);
      await until(
        async () => (await sessions(database, runId)).every((s) => s.status === 'SUCCESS'),
        'both first sessions ended',
      );
      expect(worker.stderr()).toContain(`${runId}/peer-1 did not start: the run ended first`);
      expect(worker.stderr()).toContain(`${runId}/peer-2 did not start: the run ended first`);
      await fleet.db.sql(
        `UPDATE colony.fleet_runs SET stop_reason = NULL, stop_status = NULL WHERE run_id = '${runId}'`,
        database,
      );
    } finally {
      owner.child.kill('SIGCONT');
    }

    const code = await owner.exited;
    expect(code, `${owner.stderr().slice(-3000)}\n${fleet.workers.map((w) => w.stderr()).join('\n')}`).toBe(
      0,
    );
    expect(JSON.parse(owner.stdout().trim().split('\n').pop() ?? '{}').status).toBe('succeeded');

    const events = await runEvents(url, runId);
    // Each peer was placed once, by its second session, and finished done.
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(placed.map((e) => e.data.session).sort()).toEqual([`${runId}/peer-1#2`, `${runId}/peer-2#2`]);
    const finished = events.filter((e) => e.kind === 'agent.finished');
    expect(finished.map((e) => [e.agent, e.data.status]).sort()).toEqual([
      ['peer-1', 'done'],
      ['peer-2', 'done'],
    ]);
    // The log says why each was handed again.
    const again = events.filter(
      (e) => e.kind === 'warning' && String(e.data.message).includes('handing it to the fleet again'),
    );
    expect(again.map((e) => String(e.data.message)).sort()).toEqual([
      `fleet: ${runId}/peer-1 ended before peer-1 started (the run ended first); handing it to the fleet again (attempt 2 of 4)`,
      `fleet: ${runId}/peer-2 ended before peer-2 started (the run ended first); handing it to the fleet again (attempt 2 of 4)`,
    ]);
    expect((await sessions(database, runId)).map((s) => [s.workflow_uuid, s.status])).toEqual([
      [`${runId}/peer-1`, 'SUCCESS'],
      [`${runId}/peer-1#2`, 'SUCCESS'],
      [`${runId}/peer-2`, 'SUCCESS'],
      [`${runId}/peer-2#2`, 'SUCCESS'],
    ]);
  }, 180_000);
});
