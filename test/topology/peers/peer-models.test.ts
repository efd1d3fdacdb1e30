/**
 * Heterogeneous peers: `colony run --topology peers --peer-models peer-2=MODEL --peer-max-steps
 * peer-1=N` gives a built-in peer a model and a step cap of its own. The built CLI against the fake
 * provider (real HTTP: the wire `model` of each peer's requests), real git and Postgres: peer-1 on the
 * run's model stops at its own cap while peer-2, on another model with the run's cap, does the work;
 * agent.started logs each peer's model and cap, and the summary (`--json`, `colony show`) shows them
 * per agent. Also: the usage errors of the two flags (unknown peer, unknown model, bad syntax).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/cli/commands/run.js';
import type { StoredEvent } from '../../../src/core/events.js';
import type { ScriptedPolicy } from '../../../src/model/index.js';
import type { Store } from '../../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.js';
import { colony, lastJsonLine, NO_API_KEYS } from '../../helpers/cli.js';
import { openTestStore } from '../../helpers/db.js';
import { createUserRepo } from '../../helpers/user-repo.js';
import { call, callsSoFar } from '../peers-spec.js';

const PEER_1_CAP = 3;
const RUN_CAP = 40;

/** peer-1's model calls so far: peer-2 starts only once peer-1 has used its whole cap. */
let peer1Calls = 0;

const policy: ScriptedPolicy = async (request) => {
  const id = /Your peer ID is (peer-\d+)\.$/.exec(request.system)?.[1];
  if (id === 'peer-1') {
    peer1Calls += 1;
    // It never finishes on its own: only its step cap ends it.
    return call('context_read');
  }
  for (let waited = 0; peer1Calls < PEER_1_CAP && waited < 60_000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const last = callsSoFar(request).at(-1);
  switch (last?.name) {
    case undefined:
      return call('claim', { scope: 'done.txt', summary: 'write done.txt' });
    case 'claim':
      return call('write', { path: 'done.txt', content: 'done\n' });
    case 'write':
      return call('merge_request', { note: 'done.txt' });
    case 'merge_request':
      return call('release', { scope: 'done.txt', outcome: 'landed' });
    default:
      return { text: 'peer-2: done' };
  }
};

let store: Store;
let fake: FakeProvider;
beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy });
});
afterAll(async () => {
  await fake.close();
  await store.close();
});

/** Both models reach the fake provider through the protocol's base URL (no key needed there). */
const env = () => ({ ...NO_API_KEYS, OPENAI_BASE_URL: fake.url });

describe('per-peer models and step caps', () => {
  it("sends each peer's requests to its model, binds each peer's cap, logs and shows both", async () => {
    const repo = createUserRepo({ 'README.md': '# peers with models\n' }, 'colony-peer-models-');
    const run = await colony(
      [
        'run',
        '--repo',
        repo.dir,
        '--goal',
        'write done.txt',
        '--topology',
        'peers',
        '--agents',
        '2',
        '--model',
        'openai-chat:fake-a',
        '--peer-models',
        'peer-2=openai-chat:fake-b',
        '--peer-max-steps',
        `peer-1=${PEER_1_CAP}`,
        '--max-steps',
        String(RUN_CAP),
        '--verify',
        'test -f done.txt',
        '--json',
      ],
      { env: env(), timeoutMs: 180_000 },
    );
    const summary = lastJsonLine(run.stdout);
    const context = `exit ${run.code}\n${run.stderr.slice(-3000)}`;
    expect(summary.status, context).toBe('succeeded');
    const runId = String(summary.runId);

    // On the wire: every request of a peer names that peer's model.
    const wire = fake.requests().map((r) => ({
      peer: /Your peer ID is (peer-\d+)\.$/.exec(r.request?.system ?? '')?.[1],
      model: (r.body as { model?: string }).model,
    }));
    const modelsOf = (peer: string) => new Set(wire.filter((w) => w.peer === peer).map((w) => w.model));
    expect(modelsOf('peer-1')).toEqual(new Set(['fake-a']));
    expect(modelsOf('peer-2')).toEqual(new Set(['fake-b']));
    // peer-1's own cap bound it; peer-2, on the run's cap, took more steps than that.
    expect(wire.filter((w) => w.peer === 'peer-1')).toHaveLength(PEER_1_CAP);

    const events = await store.log.read(runId);
    const of = <K extends StoredEvent['kind']>(kind: K, agent: string) =>
      events.filter((e): e is StoredEvent<K> => e.kind === kind && e.agent === agent);
    expect(of('agent.started', 'peer-1').map((e) => [e.data.model, e.data.maxSteps])).toEqual([
      ['openai-chat:fake-a', PEER_1_CAP],
    ]);
    expect(of('agent.started', 'peer-2').map((e) => [e.data.model, e.data.maxSteps])).toEqual([
      ['openai-chat:fake-b', RUN_CAP],
    ]);
    expect(of('agent.finished', 'peer-1').map((e) => [e.data.stopReason, e.data.steps])).toEqual([
      ['max_steps', PEER_1_CAP],
    ]);
    const peer2 = of('agent.finished', 'peer-2')[0];
    expect(peer2?.data.stopReason).toBe('answered');
    expect(peer2?.data.steps).toBeGreaterThan(PEER_1_CAP);

    // The summary has them per agent; the text shows them when the peers differ.
    const perAgent = summary.perAgent as Record<string, { model: string | null; maxSteps: number | null }>;
    expect(perAgent['peer-1']).toMatchObject({ model: 'openai-chat:fake-a', maxSteps: PEER_1_CAP });
    expect(perAgent['peer-2']).toMatchObject({ model: 'openai-chat:fake-b', maxSteps: RUN_CAP });
    const shown = await colony(['show', runId], { env: env() });
    expect(shown.stdout).toMatch(/peer-1 \[peer · openai-chat:fake-a · max 3 steps\]/);
    expect(shown.stdout).toMatch(/peer-2 \[peer · openai-chat:fake-b · max 40 steps\]/);
  }, 240_000);

  it('refuses an unknown peer, an unknown model and a malformed entry, naming what is valid', async () => {
    const repo = createUserRepo({ 'README.md': '# r\n' }, 'colony-peer-models-usage-');
    const run = (...args: string[]) =>
      runCommand([
        '--repo',
        repo.dir,
        '--goal',
        'g',
        '--model',
        'openai-chat:fake-a',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--verify',
        'true',
        ...args,
      ]);
    const peers = ['--topology', 'peers', '--agents', '2'];
    await expect(run(...peers, '--peer-models', 'peer-3=openai-chat:fake-b')).rejects.toThrow(
      /peer-3 is not a peer of this run \(peer-1 to peer-2\)/,
    );
    await expect(run(...peers, '--peer-max-steps', 'worker=5')).rejects.toThrow(
      /worker is not a peer of this run \(peer-1 to peer-2\)/,
    );
    await expect(run(...peers, '--peer-models', 'peer-2=no-such-model')).rejects.toThrow(
      /--peer-models peer-2: unknown model 'no-such-model'\. Known models: .*gpt/,
    );
    await expect(run(...peers, '--peer-models', 'peer-2')).rejects.toThrow(
      /--peer-models takes PEER=MODEL entries, comma-separated/,
    );
    await expect(run(...peers, '--peer-max-steps', 'peer-1=0')).rejects.toThrow(
      /--peer-max-steps peer-1: the step cap must be a positive integer, got "0"/,
    );
    await expect(run(...peers, '--peer-models', 'peer-1=a,peer-1=b')).rejects.toThrow(/peer-1 twice/);
    await expect(run('--peer-models', 'peer-1=openai-chat:fake-b')).rejects.toThrow(
      /--peer-models and --peer-max-steps need --topology peers/,
    );
  }, 120_000);
});
