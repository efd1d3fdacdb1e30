/**
 * A worker declared gone while alive (paused past the heartbeat limit, then resumed): its sessions go
 * to the other worker, and the paused one must get its DBOS slots back — a fenced session that never
 * settled held its slot for good, so a worker declared gone under load never ran anything again.
 */
import { describe, expect, it } from 'vitest';
import { colony, lastJsonLine } from '../helpers/cli.js';
import { fleetFixture, peersFleetRunArgs, runEvents, until } from './fleet-harness.js';
import { fleetPeersPolicy } from './fleet-policy.js';

// Long sessions (20 files at 1 s per step): the other worker is still busy with its own peer when
// the paused one comes back, so the queued sessions wait for a free slot.
const FILES = 20;
const fleet = fleetFixture({ model: { policy: fleetPeersPolicy(FILES), latencyMs: 1000 } });

describe('a fleet worker declared gone while alive', () => {
  it('gets its slots back when it resumes: it runs sessions again and the run completes', async () => {
    const {
      url,
      workers: [paused, other],
      repo,
      env,
    } = await fleet.start('gone_alive', {
      workers: ['wp', 'wo'],
      slots: 1,
      files: { 'README.md': '# fleet\n', 'work/.keep': '' },
    });
    const agents = 3;
    const running = colony(peersFleetRunArgs(repo.dir, agents, FILES, fleet.fakes.model.url), {
      env,
      timeoutMs: 240_000,
    });
    let runId = '';
    await until(async () => {
      const res = await fleet.db
        .sql('SELECT run_id FROM colony.runs LIMIT 1', 'gone_alive')
        .catch(() => null);
      runId = (res?.rows[0]?.run_id as string | undefined) ?? '';
      if (!runId) return false;
      const events = await runEvents(url, runId);
      return events.some((e) => e.kind === 'agent.placed' && e.data.worker === 'wp');
    }, 'a session on the worker to pause');
    paused.child.kill('SIGSTOP');
    await until(
      async () => (await runEvents(url, runId)).some((e) => e.kind === 'worker.lost'),
      'the paused worker declared gone',
      60_000,
    );
    paused.child.kill('SIGCONT');
    const run = await running;
    expect(run.code, `${run.stderr.slice(-2000)}\n${paused.stderr()}\n${other.stderr()}`).toBe(0);
    expect(lastJsonLine(run.stdout).status).toBe('succeeded');
    const events = await runEvents(url, runId);
    const lost = events.filter((e) => e.kind === 'worker.lost');
    expect(lost.map((e) => [e.data.worker, e.data.by])).toEqual([['wp', 'wo']]);
    const lostAt = lost[0]?.seq ?? 0;
    // Back from the pause, it ran a session again: its slot was freed by its fenced session's end.
    const placedAfter = events.filter(
      (e) => e.kind === 'agent.placed' && e.data.worker === 'wp' && e.seq > lostAt,
    );
    expect(placedAfter.length).toBeGreaterThan(0);
    expect(paused.stderr()).toContain('was declared gone');
    // Every peer finished once, done.
    const finished = events.filter((e) => e.kind === 'agent.finished');
    expect(finished.map((e) => [e.agent, e.data.status]).sort()).toEqual(
      Array.from({ length: agents }, (_, i) => [`peer-${i + 1}`, 'done']).sort(),
    );
  }, 240_000);
});
