/**
 * A fleet over a real network (issue 13's multi-host test): every host is a network namespace of its
 * own, joined by veth pairs on one bridge (test/helpers/netns.ts), and the processes talk over those
 * addresses only:
 *
 *   owner  10.213.0.2  Postgres (listening on 10.213.0.2:5432) and the run's owner, `colony run
 *                      --workers --tls-cert … --tls-key …`, serving the hub and the merge queue over
 *                      HTTPS on 10.213.0.2:7070 (a certificate for that address, of a test CA)
 *   w1     10.213.0.3  `colony worker --name w1 --slots 2 --ca CA` (verifies the owner's certificate)
 *   w2     10.213.0.4  `colony worker --name w2 --slots 2 --ca CA`
 *   model  10.213.0.5  the fake model provider at :8080 (a relay into this test process's provider)
 *
 * No host has a route anywhere but the bridge, and none shares another's loopback: a worker that
 * used 127.0.0.1 or an address of this machine would fail. Files are not separated (namespaces share
 * the file system); that nothing reads another host's files is the fleet's own contract. The test
 * process reads the database over its Unix socket. Needs root and `ip` (CI runs as root and installs
 * iproute2: scripts/ensure-iproute2.sh); without them the test fails, saying so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, type FakeStats, startFakeProvider } from '../fake-provider/server.js';
import { fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import {
  canConnect,
  colonyIn,
  createNetwork,
  type NetHost,
  type Relay,
  relayInto,
  requireNetns,
  routesOf,
  type TestNetwork,
} from '../helpers/netns.js';
import { makeTestCa, type TestCa } from '../helpers/tls-certs.js';
import { createUserRepo } from '../helpers/user-repo.js';
import {
  joined,
  type LoggedEvent,
  runEvents,
  startWorker,
  stopFleetParts,
  until,
  type WorkerProcess,
} from './fleet-harness.js';
import {
  fleetOrchestratedPolicy,
  isOrchestratedRequest,
  writerContent,
  writerNames,
  writersTogether,
} from './fleet-orchestrated-policy.js';
import { fleetPeersPolicy } from './fleet-policy.js';

const FILES = 3;
const PEERS = 6;
const WRITERS = 4;
const HUB_PORT = 7070;
const MODEL_PORT = 8080;

let network: TestNetwork<'owner' | 'w1' | 'w2' | 'model'>;
let owner: NetHost;
let hostW1: NetHost;
let hostW2: NetHost;
let modelHost: NetHost;
let db: DebianPostgres;
let fake: FakeProvider;
let relay: Relay;
let ca: TestCa;
let ownerCert: { cert: string; key: string };
const workers: WorkerProcess[] = [];
const folders: string[] = [];
// The orchestrated scenario's writers all work at once (more than one worker's slots).
const together = writersTogether(WRITERS, 30_000);

beforeAll(async () => {
  // Fails (never skips) without root or ip, with the remedy in the message.
  requireNetns();
  network = await createNetwork(['owner', 'w1', 'w2', 'model']);
  ({ owner, w1: hostW1, w2: hostW2, model: modelHost } = network.hosts);
  ca = makeTestCa();
  folders.push(ca.dir);
  ownerCert = ca.serverCert([owner.address]);
  const peers = fleetPeersPolicy(FILES);
  const orchestrated = fleetOrchestratedPolicy(WRITERS);
  fake = await startFakeProvider({
    policy: async (request, index) => {
      if (!isOrchestratedRequest(request)) return peers(request, index);
      await together.gate(request);
      return orchestrated(request, index);
    },
    latencyMs: 150,
  });
  relay = await relayInto(modelHost, MODEL_PORT, fake.port);
  db = await startDebianPostgres({ netns: owner.ns, listen: owner.address, allow: [network.subnet] });
}, 120_000);

afterAll(async () => {
  await stopFleetParts({ workers, servers: [relay, fake], db, folders });
  await network?.destroy();
}, 60_000);

/** A fresh database for one scenario: its URL on the network and over the socket (for this process). */
async function scenarioDatabase(name: string): Promise<{ url: string; local: string }> {
  await db.sql(`CREATE DATABASE ${name}`);
  return { url: db.urlFor(name), local: db.socketUrlFor(name) };
}

function startWorkers(url: string): [WorkerProcess, WorkerProcess] {
  const env = { COLONY_DATABASE_URL: url };
  const pair: [WorkerProcess, WorkerProcess] = [
    startWorker('w1', env, { slots: 2, prefix: hostW1.exec, args: ['--ca', ca.caFile] }),
    startWorker('w2', env, { slots: 2, prefix: hostW2.exec, args: ['--ca', ca.caFile] }),
  ];
  workers.push(...pair);
  return pair;
}

function ownerArgs(repo: string, topology: string[], verify: string): string[] {
  return [
    'run',
    '--workers',
    '--hub-listen',
    `${owner.address}:${HUB_PORT}`,
    '--hub-url',
    `https://${owner.address}:${HUB_PORT}`,
    '--tls-cert',
    ownerCert.cert,
    '--tls-key',
    ownerCert.key,
    ...topology,
    '--repo',
    repo,
    '--goal',
    'each agent adds its own files',
    '--verify',
    verify,
    '--sandbox',
    'off',
    ...fakeModelFlags(`${relay.url}/v1`),
    '--json',
  ];
}

function ownerEnv(url: string): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'colony-netns-owner-'));
  folders.push(home);
  return { ...NO_API_KEYS, COLONY_HOME: home, COLONY_DATABASE_URL: url };
}

function newRepo(files: Record<string, string>): string {
  const repo = createUserRepo(files, 'colony-netns-repo-');
  folders.push(repo.dir);
  return repo.dir;
}

async function newestRun(database: string): Promise<string | null> {
  const res = await db.sql('SELECT run_id FROM colony.runs ORDER BY created_at DESC LIMIT 1', database);
  return (res.rows[0]?.run_id as string | undefined) ?? null;
}

function filesOn(repo: string, ref: string, folder: string): string[] {
  return execFileSync('git', ['ls-tree', '-r', '--name-only', ref, folder], { cwd: repo, encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .sort();
}

function show(repo: string, ref: string, path: string): string {
  return execFileSync('git', ['show', `${ref}:${path}`], { cwd: repo, encoding: 'utf8' });
}

function isAncestor(repo: string, commit: string, ref: string): boolean {
  try {
    execFileSync('git', ['merge-base', '--is-ancestor', commit, ref], { cwd: repo, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The log's own guarantees: seq 1…n without a gap, and `colony verify` (the hash chain) passes. */
async function expectIntactLog(events: LoggedEvent[], runId: string, url: string): Promise<void> {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const verified = await colonyIn(owner, ['verify', runId], { env: ownerEnv(url) });
  expect(verified.code).toBe(0);
}

/** No scope granted twice, and none granted while an overlapping one was held (log order). */
function expectNoDoubleGrants(events: LoggedEvent[]): void {
  const grants = events.filter((e) => e.kind === 'claim.granted').map((e) => `${e.agent} ${e.data.scope}`);
  expect(new Set(grants).size).toBe(grants.length);
  const held = new Map<number, { scope: string; agent: string | null }>();
  const overlapping: string[] = [];
  for (const e of events) {
    if (e.kind === 'claim.granted') {
      const scope = String(e.data.scope);
      for (const other of held.values())
        if (scope.startsWith(other.scope) || other.scope.startsWith(scope))
          overlapping.push(`${e.agent} ${scope} while ${other.agent} held ${other.scope}`);
      held.set(Number(e.data.claimId), { scope, agent: e.agent });
    } else if (e.kind === 'claim.released' || e.kind === 'claim.expired') {
      held.delete(Number(e.data.claimId));
    }
  }
  expect(overlapping).toEqual([]);
}

/** Every merge.landed commit is in the result branch's history. */
function expectLandedReachable(events: LoggedEvent[], repo: string, branch: string): void {
  const landed = events.filter((e) => e.kind === 'merge.landed').map((e) => String(e.data.commit));
  expect(landed.length).toBeGreaterThan(0);
  expect(landed.filter((commit) => !isAncestor(repo, commit, branch))).toEqual([]);
}

/** Model calls answered more than once since `before`, by agent (from the recorded requests). */
function repeatedCalls(before: FakeStats, from: number): Map<string, number[]> {
  const after = fake.stats();
  const agentOfKey = new Map<string, string>();
  for (const r of fake.requests().slice(from)) {
    if (!r.key || !r.request) continue;
    const agent =
      /Your peer ID is (peer-\d+)/.exec(r.request.system)?.[1] ??
      /You are subagent "([^"]+)"/.exec(r.request.system)?.[1] ??
      (r.request.system.startsWith('You are the lead') ? 'lead' : 'unknown');
    agentOfKey.set(r.key, agent);
  }
  const byAgent = new Map<string, number[]>();
  for (const [key, n] of Object.entries(after.byKey)) {
    const answered = n - (before.byKey[key] ?? 0);
    if (answered <= 1) continue;
    const agent = agentOfKey.get(key) ?? 'unknown';
    byAgent.set(agent, [...(byAgent.get(agent) ?? []), answered]);
  }
  return byAgent;
}

describe('a fleet over a network of namespaces', () => {
  it('the hosts reach each other over the bridge and nothing else', async () => {
    // One route each: the test network's subnet on eth0 (no default route, nothing of this machine's).
    for (const host of Object.values(network.hosts))
      expect((await routesOf(host)).map((r) => r.split(' ').slice(0, 3).join(' '))).toEqual([
        `${network.subnet} dev eth0`,
      ]);
    // The provider is this process's server on 127.0.0.1: a worker reaches it only through the relay.
    expect(await canConnect(hostW1, modelHost.address, MODEL_PORT)).toBe(true);
    expect(await canConnect(hostW1, '127.0.0.1', fake.port)).toBe(false);
    expect(await canConnect(hostW2, owner.address, db.port)).toBe(true);
    expect(await canConnect(hostW2, '127.0.0.1', db.port)).toBe(false);
  });

  it('peers across two workers: one worker is killed -9 mid-run, the run completes with nothing lost or repeated', async () => {
    const { url, local } = await scenarioDatabase('peers_killed');
    const pair = startWorkers(url);
    await Promise.all(pair.map(joined));
    const repo = newRepo({ 'README.md': '# fleet over a network\n', 'work/.keep': '' });
    const before = fake.stats();
    const from = fake.requests().length;
    const env = ownerEnv(url);
    const running = colonyIn(
      owner,
      ownerArgs(
        repo,
        ['--topology', 'peers', '--agents', String(PEERS), '--merge-verify', 'true'],
        `test "$(ls work/*/*.txt | wc -l)" -ge ${PEERS * FILES}`,
      ),
      { env, timeoutMs: 180_000 },
    );

    let ownerExited = false;
    void running.then(() => {
      ownerExited = true;
    });
    // Kill the worker of the first agent that wrote a file (claimed, half-way through its work).
    let runId = '';
    let victimName = '';
    await until(
      async () => {
        if (ownerExited) {
          const early = await running;
          throw new Error(
            `the run ended before any agent wrote: ${early.stdout.slice(-2000)} ${early.stderr}`,
          );
        }
        runId ||= (await newestRun('peers_killed')) ?? '';
        if (!runId) return false;
        const events = await runEvents(local, runId);
        const workerOf = new Map(
          events.filter((e) => e.kind === 'agent.placed').map((e) => [e.agent, String(e.data.worker)]),
        );
        const wrote = events.find(
          (e) => e.kind === 'tool.finished' && e.data.name === 'write' && workerOf.has(e.agent),
        );
        victimName = wrote ? (workerOf.get(wrote.agent) ?? '') : '';
        return victimName !== '';
      },
      'an agent at work on a worker',
      120_000,
    );
    const victim = pair.find((w) => w.name === victimName);
    const survivor = pair.find((w) => w.name !== victimName);
    if (!victim || !survivor) throw new Error(`no worker named ${victimName}`);
    victim.child.kill('SIGKILL');
    await victim.closed;

    const run = await running;
    if (run.code !== 0)
      console.log(run.stdout.slice(-3000), run.stderr.slice(-3000), survivor.stderr().slice(-3000));
    expect(run.code).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    expect(summary.runId).toBe(runId);
    // Every worker reached the owner over TLS (the workers verify its certificate with --ca).
    expect(summary.fleetTransport).toBe('tls');
    // The owner advertised the hub at its own address on the network.
    const fleetRun = await db.sql(
      `SELECT hub_url FROM colony.fleet_runs WHERE run_id = '${runId}'`,
      'peers_killed',
    );
    expect(fleetRun.rows[0]?.hub_url).toBe(`https://${owner.address}:${HUB_PORT}`);

    const events = await runEvents(local, runId);
    await expectIntactLog(events, runId, url);
    // The survivor declared the victim lost and took its sessions over.
    const lost = events.filter((e) => e.kind === 'worker.lost');
    expect(lost.map((e) => [e.data.worker, e.data.by])).toEqual([[victim.name, survivor.name]]);
    const reenqueued = Number(lost[0]?.data.reenqueued);
    expect(reenqueued).toBeGreaterThan(0);
    const placed = events.filter((e) => e.kind === 'agent.placed');
    const peers = Array.from({ length: PEERS }, (_, i) => `peer-${i + 1}`);
    expect(new Set(placed.map((e) => e.agent))).toEqual(new Set(peers));
    const takenOver = placed.filter((e) => Number(e.data.epoch) > 1);
    expect(takenOver.length).toBe(reenqueued);
    expect(takenOver.every((e) => e.data.worker === survivor.name)).toBe(true);
    // Every peer finished once, done, and each step of each peer is in the log once.
    const finished = events.filter((e) => e.kind === 'agent.finished');
    expect(finished.map((e) => e.agent).sort()).toEqual([...peers].sort());
    // Named with why, so a failure says which agent ended how.
    expect(finished.filter((e) => e.data.status !== 'done').map((e) => [e.agent, e.data.reason])).toEqual([]);
    const steps = events.filter((e) => e.kind === 'model.response').map((e) => `${e.agent}#${e.data.step}`);
    expect(new Set(steps).size).toBe(steps.length);
    // Completed model calls repeated: at most the one in flight, once, per taken-over agent.
    const repeated = repeatedCalls(before, from);
    const takenOverAgents = new Set(takenOver.map((e) => e.agent));
    for (const [agent, counts] of repeated) {
      expect(takenOverAgents.has(agent), `${agent} repeated a model call but was not taken over`).toBe(true);
      expect(counts).toEqual([2]);
    }
    expectNoDoubleGrants(events);
    const branch = `colony/${runId}`;
    expectLandedReachable(events, repo, branch);
    const expected = peers.flatMap((peer) =>
      Array.from({ length: FILES }, (_, k) => `work/${peer}/${k + 1}.txt`),
    );
    expect(filesOn(repo, branch, 'work')).toEqual([...expected, 'work/.keep'].sort());
    for (const peer of peers) expect(show(repo, branch, `work/${peer}/1.txt`)).toBe(`${peer} 1\n`);
  }, 240_000);

  it('orchestrated across two workers: the lead on the owner, its writers on the workers, every file lands', async () => {
    const { url, local } = await scenarioDatabase('orchestrated');
    const pair = startWorkers(url);
    await Promise.all(pair.map(joined));
    const repo = newRepo({ 'README.md': '# fleet over a network\n', 'out/.keep': '' });
    const env = ownerEnv(url);
    // The merge check runs this too, so it passes on partial results: at least one file, each as its
    // writer wrote it (the test checks below that all of them landed).
    const verify = `ls out/*.txt >/dev/null && test -z "$(grep -L -x 'written by writer-[0-9]*' out/*.txt)"`;
    const run = await colonyIn(owner, ownerArgs(repo, ['--topology', 'orchestrated'], verify), {
      env,
      timeoutMs: 180_000,
    });
    if (run.code !== 0)
      console.log(
        run.stdout.slice(-3000),
        run.stderr.slice(-3000),
        ...pair.map((w) => w.stderr().slice(-2000)),
      );
    expect(run.code).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    const runId = String(summary.runId);
    expect(await newestRun('orchestrated')).toBe(runId);

    const events = await runEvents(local, runId);
    await expectIntactLog(events, runId, url);
    const names = writerNames(WRITERS);
    expect(
      events
        .filter((e) => e.kind === 'subagent.created')
        .map((e) => e.data.name)
        .sort(),
    ).toEqual(names);
    const tasks = events.filter((e) => e.kind === 'task.finished');
    expect(tasks.map((e) => [e.data.agent, e.data.status]).sort()).toEqual(names.map((n) => [n, 'done']));
    // All four writers worked at once, so both workers (2 slots each) ran some: each writer's task ran
    // on a worker, none in the owner's process.
    expect(together.timedOut(), 'the writers never all worked at once').toBe(false);
    const placed = events.filter((e) => e.kind === 'agent.placed');
    expect(new Set(placed.map((e) => e.agent))).toEqual(new Set(names));
    expect(new Set(placed.map((e) => String(e.data.worker)))).toEqual(new Set(['w1', 'w2']));
    expect(events.filter((e) => e.kind === 'worker.lost')).toEqual([]);
    // Each writer asked once and landed once.
    const requested = events.filter((e) => e.kind === 'merge.requested');
    expect(requested.map((e) => e.agent).sort()).toEqual(names);
    const landed = events.filter((e) => e.kind === 'merge.landed');
    expect(landed.map((e) => Number(e.data.mr)).sort()).toEqual(
      requested.map((e) => Number(e.data.mr)).sort(),
    );
    const finished = events.filter((e) => e.kind === 'agent.finished');
    // Named with why, so a failure says which agent ended how.
    expect(finished.filter((e) => e.data.status !== 'done').map((e) => [e.agent, e.data.reason])).toEqual([]);
    expectNoDoubleGrants(events);
    const branch = `colony/${runId}`;
    expectLandedReachable(events, repo, branch);
    expect(filesOn(repo, branch, 'out')).toEqual([...names.map((n) => `out/${n}.txt`), 'out/.keep'].sort());
    for (const name of names) expect(show(repo, branch, `out/${name}.txt`)).toBe(writerContent(name));
  }, 240_000);
});
