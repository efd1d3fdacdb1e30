/**
 * `--integrators` on a fleet run: peer-1 reviews the others' merge requests. The integrator runs with
 * the run's owner, beside the queue its review tools act on (the parked requests, their diffs from
 * the hub); the other peers run on a worker, their requests reach the queue through the gateway,
 * wait for the integrator's review, and land once it approved them.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { colony, fakeModelFlags, lastJsonLine } from '../helpers/cli.js';
import { fleetFixture, runEvents } from './fleet-harness.js';
import { INTEGRATOR, integratorsPolicy } from './integrators-policy.js';

const AGENTS = 3;
const fleet = fleetFixture({ model: { policy: integratorsPolicy(AGENTS - 1) } });

describe('colony run --workers --integrators', () => {
  it("lands the workers' peers' requests once the integrator (with the owner) approved them", async () => {
    const {
      url,
      workers: [worker],
      repo,
      env,
    } = await fleet.start('integrators_fleet', {
      workers: ['wint'],
      slots: 4,
      files: { 'README.md': '# review\n' },
      repoPrefix: 'colony-integrators-fleet-',
    });
    const all = Array.from({ length: AGENTS }, (_, i) => `peer-${i + 1}`);
    const run = await colony(
      [
        'run',
        '--workers',
        '--topology',
        'peers',
        '--agents',
        String(AGENTS),
        '--integrators',
        '1',
        '--repo',
        repo.dir,
        '--goal',
        'each peer adds its file',
        ...fakeModelFlags(fleet.fakes.model.url),
        '--verify',
        all.map((p) => `test -f work/${p}/1.txt`).join(' && '),
        '--merge-verify',
        'true',
        '--max-steps',
        '120',
        '--sandbox',
        'off',
        '--json',
      ],
      { env, timeoutMs: 180_000 },
    );
    const context = `${run.stderr}\n${run.stdout.slice(-3000)}\n${worker.stderr()}`;
    expect(run.code, context).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    const runId = String(summary.runId);
    const events = await runEvents(url, runId);
    // The integrator ran with the owner (no placement), the other peers on the worker.
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(placed.map((e) => [e.agent, e.data.worker]).sort()).toEqual([
      ['peer-2', 'wint'],
      ['peer-3', 'wint'],
    ]);
    // Only the integrator has the review tools; every peer's prompt names it as the reviewer.
    const started = events.filter((e) => e.kind === 'agent.started');
    for (const e of started) {
      expect((e.data.tools as string[]).includes('review_merge'), String(e.agent)).toBe(
        e.agent === INTEGRATOR,
      );
      expect(String(e.data.system)).toMatch(/peer-1\. A merge request that passes the merge check waits/);
    }
    // The workers' peers' requests waited for the integrator's review, which approved each.
    const requests = new Map(
      events.filter((e) => e.kind === 'merge.requested').map((e) => [Number(e.data.mr), String(e.agent)]),
    );
    const parked = events
      .filter((e) => e.kind === 'merge.awaiting_approval')
      .map((e) => requests.get(Number(e.data.mr)));
    expect(parked.sort()).toEqual(['peer-2', 'peer-3']);
    const approvals = events.filter((e) => e.kind === 'merge.approved');
    expect(approvals.map((e) => [e.agent, e.data.by])).toEqual([
      [INTEGRATOR, INTEGRATOR],
      [INTEGRATOR, INTEGRATOR],
    ]);
    expect(approvals.map((e) => requests.get(Number(e.data.mr))).sort()).toEqual(['peer-2', 'peer-3']);
    expect(events.filter((e) => e.kind === 'merge.approval_ignored')).toEqual([]);
    // Every request landed (the sole integrator's own after the merge check alone).
    expect(
      events
        .filter((e) => e.kind === 'merge.landed')
        .map((e) => e.agent)
        .sort(),
    ).toEqual(all);
    const files = execFileSync('git', ['ls-tree', '-r', '--name-only', `colony/${runId}`, 'work'], {
      cwd: repo.dir,
      encoding: 'utf8',
    });
    expect(files.trim().split('\n').sort()).toEqual(all.map((p) => `work/${p}/1.txt`));
  }, 240_000);
});
