/**
 * Fleet parity over a real network (as netns.test.ts): the owner (Postgres, `colony run --workers`,
 * the gateway), a worker and the model provider each in a network namespace of its own, joined by a
 * bridge only.
 * - orchestrated with `--approve-merges` and a CLI-driven subagent: the worker starts the CLI (the mini
 *   agent) and serves it MCP and the model proxy on its own loopback; the subagent's merge_request
 *   waits on the worker until a person approves it (`colony approve` on the owner's host), then lands.
 * - peers with `--integrators 1`: the integrator with the owner approves the worker's peers' requests.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratedCliPolicy, SUBAGENT } from '../external-agent/orchestrated-policy.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { COLONY_BIN, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { type DebianPostgres, startDebianPostgres } from '../helpers/debian-postgres.js';
import {
  colonyIn,
  createNetwork,
  type NetHost,
  type Relay,
  relayInto,
  requireNetns,
  spawnIn,
  type TestNetwork,
} from '../helpers/netns.js';
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
import { INTEGRATOR, integratorsPolicy } from './integrators-policy.js';

const HUB_PORT = 7070;
const MODEL_PORT = 8080;
const MINI_AGENT = join(import.meta.dirname, '..', 'external-agent', 'mini-agent.mjs');
const PEERS = 3;

let network: TestNetwork<'owner' | 'w1' | 'model'>;
let owner: NetHost;
let hostW1: NetHost;
let db: DebianPostgres;
let fake: FakeProvider;
let relay: Relay;
const workers: WorkerProcess[] = [];
const folders: string[] = [];

beforeAll(async () => {
  requireNetns();
  network = await createNetwork(['owner', 'w1', 'model'], 1);
  ({ owner, w1: hostW1 } = network.hosts);
  const peers = integratorsPolicy(PEERS - 1);
  const orchestrated = orchestratedCliPolicy(['alpha']);
  fake = await startFakeProvider({
    policy: (request, index) =>
      /Your peer ID is/.test(request.system) ? peers(request, index) : orchestrated(request, index),
  });
  relay = await relayInto(network.hosts.model, MODEL_PORT, fake.port);
  db = await startDebianPostgres({ netns: owner.ns, listen: owner.address, allow: [network.subnet] });
}, 120_000);

afterAll(async () => {
  await stopFleetParts({ workers, servers: [relay, fake], db, folders });
  await network?.destroy();
}, 60_000);

/** A database, a worker on w1 and the owner's environment for one scenario. */
async function scenario(name: string) {
  await db.sql(`CREATE DATABASE ${name}`);
  const url = db.urlFor(name);
  const local = db.socketUrlFor(name);
  const worker = startWorker(
    'w1',
    { COLONY_DATABASE_URL: url },
    // Plain HTTP across hosts, allowed explicitly (netns.test.ts covers the same fleet over TLS).
    { slots: 4, prefix: hostW1.exec, args: ['--insecure-http'] },
  );
  workers.push(worker);
  await joined(worker);
  const home = mkdtempSync(join(tmpdir(), 'colony-netns-owner-'));
  folders.push(home);
  const env = { ...NO_API_KEYS, COLONY_HOME: home, COLONY_DATABASE_URL: url };
  return { url, local, worker, env };
}

function ownerArgs(repo: string, args: string[]): string[] {
  return [
    'run',
    '--workers',
    '--hub-listen',
    `${owner.address}:${HUB_PORT}`,
    '--hub-url',
    `http://${owner.address}:${HUB_PORT}`,
    '--insecure-http',
    '--repo',
    repo,
    '--sandbox',
    'off',
    ...fakeModelFlags(`${relay.url}/v1`),
    '--json',
    ...args,
  ];
}

const ofKind = (events: LoggedEvent[], kind: string) => events.filter((e) => e.kind === kind);

describe('fleet parity over a network of namespaces', () => {
  it("a CLI-driven subagent on the worker: its merge waits for a person's approval, then lands", async () => {
    const { local, worker, env } = await scenario('parity_cli_approval');
    const repo = createUserRepo({ 'README.md': '# m\n', 'src/alpha/value.txt': 'broken\n' }, 'colony-netns-');
    folders.push(repo.dir);
    const run = spawnIn(
      owner,
      process.execPath,
      [
        COLONY_BIN,
        ...ownerArgs(repo.dir, [
          '--topology',
          'orchestrated',
          '--goal',
          'fix every module',
          '--verify',
          'grep -qx "fixed alpha" src/alpha/value.txt',
          '--approve-merges',
          '--agent-cli',
          `cmd:node ${MINI_AGENT}`,
        ]),
      ],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    run.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    run.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const closed = new Promise<number | null>((resolve) => run.on('close', resolve));
    let runId = '';
    await until(async () => {
      const res = await db.sql('SELECT run_id FROM colony.runs LIMIT 1', 'parity_cli_approval');
      runId = (res.rows[0]?.run_id as string | undefined) ?? '';
      return runId !== '' && ofKind(await runEvents(local, runId), 'merge.awaiting_approval').length === 1;
    }, 'the request parked').catch((error: Error) => {
      throw new Error(`${error.message}\n${err}\n${worker.stderr()}`);
    });
    // Parked, not landed; the subagent's task has not ended (its merge_request waits on the worker).
    let events = await runEvents(local, runId);
    expect(ofKind(events, 'merge.landed')).toEqual([]);
    expect(ofKind(events, 'task.finished')).toEqual([]);
    const mr = Number(ofKind(events, 'merge.awaiting_approval')[0]?.data.mr);
    const approved = await colonyIn(owner, ['approve', runId, String(mr)], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(await closed, `${err}\n${worker.stderr()}`).toBe(0);
    expect(lastJsonLine(out).status).toBe('succeeded');
    events = await runEvents(local, runId);
    expect(ofKind(events, 'agent.placed').map((e) => [e.agent, e.data.worker])).toEqual([[SUBAGENT, 'w1']]);
    const cli = events.filter((e) => e.kind === 'agent.cli' && e.agent === SUBAGENT);
    expect(cli.map((e) => e.data.event)).toEqual(['started', 'exited']);
    const approvedAt = ofKind(events, 'merge.approved')[0]?.seq ?? Number.POSITIVE_INFINITY;
    const landed = ofKind(events, 'merge.landed');
    expect(landed.map((e) => [e.agent, Number(e.data.mr)])).toEqual([[SUBAGENT, mr]]);
    expect(landed[0]?.seq).toBeGreaterThan(approvedAt);
    expect(ofKind(events, 'task.finished').map((e) => e.data.status)).toEqual(['done']);
    expect(
      execFileSync('git', ['show', `colony/${runId}:src/alpha/value.txt`], {
        cwd: repo.dir,
        encoding: 'utf8',
      }),
    ).toBe('fixed alpha\n');
  }, 240_000);

  it("peers with an integrator: the owner's integrator approves the worker's peers' requests", async () => {
    const { local, worker, env } = await scenario('parity_integrators');
    const repo = createUserRepo({ 'README.md': '# review\n' }, 'colony-netns-');
    folders.push(repo.dir);
    const all = Array.from({ length: PEERS }, (_, i) => `peer-${i + 1}`);
    const run = await colonyIn(
      owner,
      ownerArgs(repo.dir, [
        '--topology',
        'peers',
        '--agents',
        String(PEERS),
        '--integrators',
        '1',
        '--goal',
        'each peer adds its file',
        '--verify',
        all.map((p) => `test -f work/${p}/1.txt`).join(' && '),
        '--merge-verify',
        'true',
        '--max-steps',
        '120',
      ]),
      { env, timeoutMs: 180_000 },
    );
    expect(run.code, `${run.stderr.slice(-3000)}\n${worker.stderr()}`).toBe(0);
    const summary = lastJsonLine(run.stdout);
    expect(summary.status).toBe('succeeded');
    // Plain HTTP off loopback, allowed with --insecure-http: the summary says so.
    expect(summary.fleetTransport).toBe('insecure-http');
    const events = await runEvents(local, String(summary.runId));
    expect(
      ofKind(events, 'agent.placed')
        .map((e) => e.agent)
        .sort(),
    ).toEqual(['peer-2', 'peer-3']);
    expect(ofKind(events, 'merge.approved').map((e) => e.agent)).toEqual([INTEGRATOR, INTEGRATOR]);
    expect(
      ofKind(events, 'merge.landed')
        .map((e) => e.agent)
        .sort(),
    ).toEqual(all);
  }, 240_000);
});
