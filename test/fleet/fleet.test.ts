import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../fake-provider/server.js';
import { COLONY_BIN, colony, fakeModelFlags, lastJsonLine } from '../helpers/cli.js';
import {
  fleetFixture,
  peersFleetRunArgs,
  runEvents,
  sessionRows,
  startOwner,
  until,
} from './fleet-harness.js';
import { fleetPeersPolicy } from './fleet-policy.js';
import { orchestratedTasksPolicy, writerName } from './orchestrated-tasks-policy.js';

// A run's peers on two worker processes (this machine, loopback): the owner keeps the hub and the
// merge queue, workers clone over HTTP with per-agent tokens and take sessions from the DBOS queue.
const FILES = 3;
const WRITERS = 3;
const fleet = fleetFixture({
  peers: { policy: fleetPeersPolicy(FILES), latencyMs: 150 },
  orchestrated: { policy: orchestratedTasksPolicy(WRITERS), latencyMs: 100 },
  twice: { policy: fleetPeersPolicy(FILES, { second: true }), latencyMs: 150 },
});

/** A database of its own, two workers joined to it, a user repository and the owner's environment. */
async function fleetOf(database: string, names: readonly [string, string]) {
  const started = await fleet.start(database, {
    workers: names,
    slots: 2,
    files: { 'README.md': '# fleet\n', 'work/.keep': '' },
  });
  return { url: started.url, pair: started.workers, repo: started.repo, ownerEnv: started.env };
}

function runArgs(
  repo: string,
  agents: number,
  provider: FakeProvider = fleet.fakes.peers,
  perAgent = FILES,
): string[] {
  return peersFleetRunArgs(repo, agents, perAgent, provider.url);
}

function filesOn(repo: string, branch: string): string[] {
  return execFileSync('git', ['ls-tree', '-r', '--name-only', branch, 'work'], {
    cwd: repo,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .filter(Boolean)
    .sort();
}

function expectedFiles(agents: number, extra = false): string[] {
  return Array.from({ length: agents }, (_, i) => [
    ...Array.from({ length: FILES }, (_, k) => `work/peer-${i + 1}/${k + 1}.txt`),
    ...(extra ? [`work/peer-${i + 1}/extra.txt`] : []),
  ])
    .flat()
    .concat('work/.keep')
    .sort();
}

describe('colony run --workers', () => {
  it('runs every peer on the fleet: sessions spread over both workers, a synced branch pushes again, all changes land', async () => {
    const { url, repo, ownerEnv } = await fleetOf('spread', ['wa', 'wb']);
    const agents = 6;
    // Each peer merges twice, with a sync (a rebase onto main) between: its second push is forced.
    const run = await colony(runArgs(repo.dir, agents, fleet.fakes.twice, FILES + 1), {
      env: ownerEnv,
      timeoutMs: 180_000,
    });
    expect(run.stderr).not.toMatch(/Error|failed/);
    expect(run.code).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    const runId = String(summary.runId);
    const events = await runEvents(url, runId);
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(new Set(placed.map((e) => e.agent)).size).toBe(agents);
    expect(new Set(placed.map((e) => e.data.worker))).toEqual(new Set(['wa', 'wb']));
    expect(placed.every((e) => e.data.epoch === 1)).toBe(true);
    const landed = events.filter((e) => e.kind === 'merge.landed');
    const requested = events.filter((e) => e.kind === 'merge.requested');
    expect(requested).toHaveLength(2 * agents);
    expect(landed.map((e) => e.data.mr as number).sort()).toEqual(
      requested.map((e) => e.data.mr as number).sort(),
    );
    // The result in the user's repository has every peer's files, the second round's too.
    expect(filesOn(repo.dir, `colony/${runId}`)).toEqual(expectedFiles(agents, true));
  }, 240_000);

  it('survives kill -9 of a worker mid-run: its sessions resume on the other, nothing lost or repeated', async () => {
    const {
      url,
      pair: [victim, survivor],
      repo,
      ownerEnv,
    } = await fleetOf('killed', ['wk', 'ws']);
    const agents = 8;
    const before = fleet.fakes.peers.stats();
    const running = colony(runArgs(repo.dir, agents), {
      env: ownerEnv,
      timeoutMs: 240_000,
    });
    // Kill the victim once one of its agents is half-way through (claimed and wrote a file).
    let runId = '';
    await until(async () => {
      const client = await runIdOf(url);
      if (!client) return false;
      runId = client;
      const events = await runEvents(url, runId);
      const mine = new Set(
        events.filter((e) => e.kind === 'agent.placed' && e.data.worker === 'wk').map((e) => e.agent),
      );
      return events.some((e) => e.kind === 'tool.finished' && e.data.name === 'write' && mine.has(e.agent));
    }, 'an agent of the victim at work');
    victim.child.kill('SIGKILL');
    await victim.closed;
    const run = await running;
    if (run.code !== 0) console.log(run.stdout.slice(-3000), run.stderr.slice(-3000), survivor.stderr());
    expect(run.code).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    expect(summary.runId).toBe(runId);

    const events = await runEvents(url, runId);
    // Nothing lost: the hash chain holds and seq has no gap.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const verified = await colony(['verify', runId], { env: ownerEnv });
    expect(verified.code).toBe(0);
    // The victim was declared lost by the survivor, which re-enqueued and took over its sessions.
    const lost = events.filter((e) => e.kind === 'worker.lost');
    expect(lost.map((e) => [e.data.worker, e.data.by])).toEqual([['wk', 'ws']]);
    expect(Number(lost[0]?.data.reenqueued)).toBeGreaterThan(0);
    const placed = events.filter((e) => e.kind === 'agent.placed');
    const takenOver = placed.filter((e) => e.data.takeover === true);
    expect(takenOver.length).toBe(Number(lost[0]?.data.reenqueued));
    expect(takenOver.every((e) => e.data.worker === 'ws')).toBe(true);
    // Every agent finished exactly once, and each step of each agent was answered once in the log.
    const finished = events.filter((e) => e.kind === 'agent.finished');
    expect(finished.map((e) => e.agent).sort()).toEqual(
      Array.from({ length: agents }, (_, i) => `peer-${i + 1}`).sort(),
    );
    // Named with why, so a failure says which agent ended how.
    expect(finished.filter((e) => e.data.status !== 'done').map((e) => [e.agent, e.data.reason])).toEqual([]);
    const steps = events.filter((e) => e.kind === 'model.response').map((e) => `${e.agent}#${e.data.step}`);
    expect(new Set(steps).size).toBe(steps.length);
    // Completed model calls repeated: at most the one in flight per taken-over agent.
    const after = fleet.fakes.peers.stats();
    const repeated = Object.entries(after.byKey).filter(([key, n]) => n > (before.byKey[key] ?? 0) + 1);
    expect(repeated.length).toBeLessThanOrEqual(takenOver.length);
    // No double grants: no scope was granted twice while held.
    const grants = events.filter((e) => e.kind === 'claim.granted').map((e) => `${e.agent} ${e.data.scope}`);
    expect(new Set(grants).size).toBe(grants.length);
    // Every landed commit is reachable from the result.
    const branch = `colony/${runId}`;
    for (const e of events.filter((e) => e.kind === 'merge.landed')) {
      expect(() =>
        execFileSync('git', ['merge-base', '--is-ancestor', String(e.data.commit), branch], {
          cwd: repo.dir,
        }),
      ).not.toThrow();
    }
    expect(filesOn(repo.dir, branch)).toEqual(expectedFiles(agents));
  }, 300_000);
});

describe('a fleet run whose owner dies', () => {
  it('resumes with colony resume: workers carry on with the new hub address and secret, nothing lost', async () => {
    const { url, repo, ownerEnv } = await fleetOf('owner_killed', ['ra', 'rb']);
    const agents = 8;
    const owner = spawn(process.execPath, [COLONY_BIN, ...runArgs(repo.dir, agents)], {
      env: { ...process.env, ...ownerEnv },
      stdio: 'ignore',
    });
    const ownerClosed = new Promise((resolve) => owner.on('close', resolve));
    // Kill the owner once some work landed and some is still to do.
    let runId = '';
    await until(async () => {
      runId = (await runIdOf(url)) ?? '';
      if (!runId) return false;
      const events = await runEvents(url, runId);
      const finished = events.filter((e) => e.kind === 'agent.finished').length;
      return events.some((e) => e.kind === 'merge.landed') && finished < agents - 2;
    }, 'the first landing');
    owner.kill('SIGKILL');
    await ownerClosed;
    const resumed = await colony(['resume', runId, '--json'], { env: ownerEnv, timeoutMs: 180_000 });
    if (resumed.code !== 0) await explain(url, runId);
    expect(resumed.code).toBe(0);
    expect(lastJsonLine(resumed.stdout).status).toBe('succeeded');
    const events = await runEvents(url, runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.kind === 'run.resumed')).toHaveLength(1);
    // Every peer finished once and every peer's files are on the result branch.
    const finished = events.filter((e) => e.kind === 'agent.finished').map((e) => e.agent);
    expect(finished.sort()).toEqual(Array.from({ length: agents }, (_, i) => `peer-${i + 1}`).sort());
    expect(filesOn(repo.dir, `colony/${runId}`)).toEqual(expectedFiles(agents));
    const verified = await colony(['verify', runId], { env: ownerEnv });
    expect(verified.code).toBe(0);
  }, 300_000);
});

describe('colony run --topology orchestrated --workers', () => {
  it("runs the subagents' tasks on the fleet, one session per task; the lead stays with the owner", async () => {
    const { url, pair, repo, ownerEnv } = await fleetOf('orchestrated', ['oa', 'ob']);
    const run = await colony(
      [
        'run',
        '--workers',
        '--topology',
        'orchestrated',
        '--repo',
        repo.dir,
        '--goal',
        'each writer adds its files under work/',
        // Also each merge's check (orchestrated has no separate one): true of partial progress too.
        '--verify',
        'ls work/*/1.txt',
        '--sandbox',
        'off',
        ...fakeModelFlags(fleet.fakes.orchestrated.url),
        '--json',
      ],
      { env: ownerEnv, timeoutMs: 180_000 },
    );
    if (run.code !== 0) console.log(run.stdout.slice(-3000), run.stderr.slice(-3000), pair[0]?.stderr());
    expect(run.code).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    const runId = String(summary.runId);
    const events = await runEvents(url, runId);
    // The lead ran in the owner's process: it has no placement.
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(placed.some((e) => e.agent === 'lead')).toBe(false);
    // One session per task: every task was placed once, on one of the two workers, never taken over.
    const tasks = events.filter((e) => e.kind === 'task.assigned').map((e) => String(e.data.task));
    expect(tasks).toHaveLength(WRITERS + 2);
    expect(placed.map((e) => String(e.data.session).split('/').pop()).sort()).toEqual([...tasks].sort());
    expect(placed.every((e) => e.data.takeover === false)).toBe(true);
    expect(new Set(placed.map((e) => e.data.worker)).size).toBeGreaterThan(0);
    expect(placed.every((e) => e.data.worker === 'oa' || e.data.worker === 'ob')).toBe(true);
    // The first writer's second task continued its conversation (one agent.started, two task.started)
    // under a new epoch of the same agent.
    const first = writerName(0);
    expect(events.filter((e) => e.agent === first && e.kind === 'agent.started')).toHaveLength(1);
    expect(events.filter((e) => e.agent === first && e.kind === 'task.started')).toHaveLength(2);
    expect(placed.filter((e) => e.agent === first).map((e) => e.data.epoch)).toEqual([1, 2]);
    // A subagent on a worker has the team's shared context and claims, as in the owner's process.
    const firstStarted = events.find((e) => e.agent === first && e.kind === 'agent.started');
    expect(firstStarted?.data.tools).toEqual(
      expect.arrayContaining(['context_read', 'context_post', 'claim']),
    );
    // Every task answered; the lead saw each result.
    const finished = events.filter((e) => e.kind === 'task.finished');
    expect(finished.map((e) => e.data.status)).toEqual(tasks.map(() => 'done'));
    // Every writer's merge request landed through the owner's queue, and the result has the files.
    const landed = events.filter((e) => e.kind === 'merge.landed');
    expect(landed).toHaveLength(WRITERS + 1);
    const files = execFileSync('git', ['ls-tree', '-r', '--name-only', `colony/${runId}`, 'work'], {
      cwd: repo.dir,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .sort();
    expect(files).toEqual(
      [
        'work/.keep',
        ...Array.from({ length: WRITERS }, (_, i) => `work/${writerName(i)}/1.txt`),
        `work/${first}/2.txt`,
      ].sort(),
    );
  }, 240_000);
});

/** The newest run in the fleet's database (the one the test started), or null before it exists. */
describe('Postgres crashes during a worker takeover (issue 30)', () => {
  // Last in the file: the crash restarts the file's one Postgres, under every earlier test's workers too.
  it('the run finishes once resumed: no agent ran twice at once, nothing lost, the chain verifies', async () => {
    const {
      url,
      pair: [victim, survivor],
      repo,
      ownerEnv,
    } = await fleetOf('pg_takeover', ['pk', 'ps']);
    const agents = 6;
    const owner = startOwner(runArgs(repo.dir, agents), ownerEnv);
    let runId = '';
    await until(async () => {
      runId = (await runIdOf(url)) ?? '';
      if (!runId) return false;
      const events = await runEvents(url, runId);
      const mine = new Set(
        events.filter((e) => e.kind === 'agent.placed' && e.data.worker === 'pk').map((e) => e.agent),
      );
      return events.some((e) => e.kind === 'tool.finished' && e.data.name === 'write' && mine.has(e.agent));
    }, 'an agent of the victim at work');
    victim.child.kill('SIGKILL');
    await victim.closed;
    // The survivor declares the victim gone and takes its sessions over: crash Postgres right then.
    await until(
      async () => (await runEvents(url, runId)).some((e) => e.kind === 'worker.lost'),
      'the takeover',
      120_000,
    );
    await fleet.db.crashAndRestart(1_000);
    // The owner either rides it out or stops writing ("lost the database") for a resume to finish.
    const ownerCode = await owner.exited;
    const ownerOut = owner.stdout();
    const lastLine = ownerOut.trim().split('\n').at(-1) ?? '';
    let final: Record<string, unknown> = lastLine.startsWith('{') ? lastJsonLine(ownerOut) : {};
    let resumes = 0;
    while (final.status !== 'succeeded' && resumes < 3) {
      resumes += 1;
      const resumed = await colony(['resume', runId, '--json'], { env: ownerEnv, timeoutMs: 180_000 });
      final = lastJsonLine(resumed.stdout);
      if (final.status !== 'succeeded')
        console.log(`resume ${resumes}:`, resumed.stdout.slice(-1500), resumed.stderr.slice(-1500));
    }
    if (final.status !== 'succeeded') {
      console.log(
        `owner exited ${ownerCode}:`,
        ownerOut.slice(-2000),
        owner.stderr().slice(-2000),
        survivor.stderr().slice(-2000),
      );
      await explain(url, runId);
    }
    expect(final.status).toBe('succeeded');

    const events = await runEvents(url, runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const verified = await colony(['verify', runId], { env: ownerEnv });
    expect(verified.code).toBe(0);
    // One session per agent at a time: every placement of an agent has a newer epoch than the last,
    // and nothing an agent logged came from an epoch that was already taken over.
    const epochs = new Map<string, number>();
    for (const e of events.filter((e) => e.kind === 'agent.placed')) {
      const epoch = Number(e.data.epoch);
      expect(epoch, `${e.agent} placed again at an older epoch`).toBeGreaterThan(
        epochs.get(String(e.agent)) ?? 0,
      );
      epochs.set(String(e.agent), epoch);
    }
    const finished = events.filter((e) => e.kind === 'agent.finished');
    expect(finished.map((e) => e.agent).sort()).toEqual(
      Array.from({ length: agents }, (_, i) => `peer-${i + 1}`).sort(),
    );
    const steps = events.filter((e) => e.kind === 'model.response').map((e) => `${e.agent}#${e.data.step}`);
    expect(new Set(steps).size).toBe(steps.length);
    const grants = events.filter((e) => e.kind === 'claim.granted').map((e) => `${e.agent} ${e.data.scope}`);
    expect(new Set(grants).size).toBe(grants.length);
    const branch = `colony/${runId}`;
    for (const e of events.filter((e) => e.kind === 'merge.landed'))
      expect(() =>
        execFileSync('git', ['merge-base', '--is-ancestor', String(e.data.commit), branch], {
          cwd: repo.dir,
        }),
      ).not.toThrow();
    expect(filesOn(repo.dir, branch)).toEqual(expectedFiles(agents));
  }, 600_000);
});

async function runIdOf(url: string): Promise<string | null> {
  const res = await fleet.db.sql(
    'SELECT run_id FROM colony.runs ORDER BY created_at DESC LIMIT 1',
    url.split('/').pop(),
  );
  return (res.rows[0]?.run_id as string | undefined) ?? null;
}

/** On a failure: the run's integration and fleet events, to say what went missing. */
async function explain(url: string, runId: string): Promise<void> {
  const interesting = /^(merge\.|worker\.|warning|run\.|agent\.(placed|finished))/;
  for (const e of await runEvents(url, runId))
    if (interesting.test(e.kind) || (e.kind === 'tool.finished' && /merge|release/.test(String(e.data.name))))
      console.log(e.seq, e.agent, e.kind, JSON.stringify(e.data).slice(0, 240));
  // Where each of the run's sessions is in DBOS, and which epoch each agent's session has.
  const database = url.split('/').pop();
  for (const row of await sessionRows(fleet.db, database ?? '', runId))
    console.log('session', JSON.stringify({ ...row, output: undefined }));
  const epochs = await fleet.db.sql(
    `SELECT * FROM colony.fleet_sessions WHERE run_id = '${runId}'`,
    database,
  );
  for (const row of epochs.rows) console.log('epoch', JSON.stringify(row));
}
