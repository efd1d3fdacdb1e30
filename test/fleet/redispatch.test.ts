/**
 * The engine may dispatch a running session again to the same worker (DBOS re-enqueued it after a
 * database restart: the soak, seed 43, saw two loops of one peer on one worker answer the same step
 * and race for its branch). Colony's fencing must hold even then: the newer execution takes the
 * session, the older one stops before it starts, and no model call is made twice.
 */
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { FLEET_QUEUE } from '../../src/fleet/names.js';
import { colony, fakeModelFlags, lastJsonLine } from '../helpers/cli.js';
import { fleetFixture, runEvents, until } from './fleet-harness.js';
import { fleetPeersPolicy } from './fleet-policy.js';

const FILES = 8;
const fleet = fleetFixture({ model: { policy: fleetPeersPolicy(FILES), latencyMs: 500 } });

describe('a session dispatched again to the worker that runs it', () => {
  it('is fenced in that worker: one loop goes on, no step is answered twice, the work lands', async () => {
    const database = 'redispatch';
    const { url, repo, env } = await fleet.start(database, {
      workers: ['w-only'],
      slots: 4,
      files: { 'README.md': '# again\n', 'work/.keep': '' },
    });
    const running = colony(
      [
        'run',
        '--workers',
        '--topology',
        'peers',
        '--agents',
        '1',
        '--repo',
        repo.dir,
        '--goal',
        'the peer adds its files under work/',
        '--verify',
        `test "$(ls work/*/*.txt | wc -l)" -ge ${FILES}`,
        '--merge-verify',
        'true',
        '--sandbox',
        'off',
        ...fakeModelFlags(fleet.fakes.model.url),
        '--json',
      ],
      { env, timeoutMs: 180_000 },
    );
    let runId = '';
    await until(async () => {
      const res = await fleet.db.sql('SELECT run_id FROM colony.runs LIMIT 1', database).catch(() => null);
      runId = (res?.rows[0]?.run_id as string | undefined) ?? '';
      if (!runId) return false;
      const events = await runEvents(url, runId);
      return events.filter((e) => e.kind === 'tool.finished' && e.agent === 'peer-1').length >= 2;
    }, 'the peer working');

    // What the engine did in the soak: the running session back on the queue, taken by the same worker.
    const client = await DBOSClient.create({ systemDatabaseUrl: url });
    try {
      await client.resumeWorkflow(`${runId}/peer-1`, { queueName: FLEET_QUEUE });
    } finally {
      await client.destroy();
    }

    const run = await running;
    expect(run.code, `${run.stderr.slice(-2000)}\n${fleet.workers.map((w) => w.stderr()).join('\n')}`).toBe(
      0,
    );
    expect(lastJsonLine(run.stdout).status).toBe('succeeded');
    const events = await runEvents(url, runId);
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(placed.map((e) => [e.data.worker, e.data.epoch])).toEqual([
      ['w-only', 1],
      ['w-only', 2],
    ]);
    // Every step answered once, one end.
    const steps = events.filter((e) => e.kind === 'model.response').map((e) => Number(e.data.step));
    expect(steps).toEqual([...new Set(steps)]);
    expect(events.filter((e) => e.kind === 'agent.finished')).toHaveLength(1);
    expect(events.filter((e) => e.kind === 'merge.landed')).toHaveLength(1);
    expect(fleet.workers[0]?.stderr()).toContain('taken over in this process (epoch 2 > 1)');
  }, 240_000);
});
