/**
 * Setup and the network (issue 27): `--setup` has the network on the base commit's tree only (unless
 * the run allows it with `--allow-network`). A peers run through executeRun (scripted peers, real git,
 * Postgres, the bubblewrap sandbox without network) whose setup command tries to reach a TCP server
 * the test runs on the host's 127.0.0.1 and sends it the tree's `where.txt`. peer-1 changes
 * `where.txt` to "agent" and lands it; peer-2 starts after (concurrency 1), on a hub main that holds
 * that landed commit, and the final check runs setup again on hub main. Setup on the base tree (peer-1's
 * checkout, the integration worktree) reaches the server; setup on a tree with peer-1's change never
 * does: the server must never read "agent".
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { call, callsSoFar, eventsOf, peersSpec, queuedMr, runScriptedPeers } from './peers-spec.js';

let store: Store;
let server: Server;
let port = 0;
/** What each connection to the server sent (a tree's where.txt). */
const received: string[] = [];

beforeAll(async () => {
  store = await openTestStore();
  server = createServer((socket) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('end', () => received.push(text.trim()));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  port = address.port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
});

const policy: ScriptedPolicy = (request) => {
  const id = /Your peer ID is (peer-\d+)\.$/.exec(request.system)?.[1];
  const calls = callsSoFar(request);
  const lastResult = request.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
  const last = calls.at(-1);
  if (id !== 'peer-1') return { text: `${id}: nothing to do` };
  if (!last) return call('write', { path: 'where.txt', content: 'agent\n' });
  switch (last.name) {
    case 'write':
      return call('merge_request', { note: 'where.txt says agent' });
    case 'merge_request':
      return call('merge_status', { mr: queuedMr(lastResult), wait: true });
    default:
      return { text: 'peer-1: landed' };
  }
};

describe('setup and the network', () => {
  it("setup reaches the host's network on the base tree only, never on a tree with an agent's change", async () => {
    const repo = createUserRepo({ 'where.txt': 'base\n' }, 'colony-setup-network-');
    // bash's /dev/tcp: in a sandbox without network 127.0.0.1 is its own loopback, with nothing on it.
    const setup = `if (cat where.txt > /dev/tcp/127.0.0.1/${port}) 2>/dev/null; then echo connected; else echo offline; fi`;
    const spec = peersSpec(repo, {
      runId: testRunId('setup-network'),
      agents: 2,
      concurrency: 1,
      goal: 'Change where.txt.',
      // Never passes: the run does not end on the goal check before peer-2 has started.
      verify: 'test -f never-there',
      mergeVerify: 'true',
      setup,
    });
    await runScriptedPeers(store, spec, policy, 10);
    const of = eventsOf(await store.log.read(spec.runId));

    expect(of('merge.landed').map((e) => e.agent)).toEqual(['peer-1']);
    const setupOutput = (agent: string) =>
      of('setup.finished')
        .find((e) => e.agent === agent)
        ?.data.output.trim();
    expect(setupOutput('peer-1')).toBe('connected');
    // peer-2's checkout is hub main with peer-1's landed change in it.
    expect(setupOutput('peer-2')).toBe('offline');
    // The final check on hub main ran (its setup too, on peer-1's change).
    expect(of('verify.finished').some((e) => e.agent === null)).toBe(true);
    expect(received).toContain('base');
    // Before the fix the server read "agent" twice: from peer-2's setup and from hub main's.
    expect(received.filter((text) => text !== 'base')).toEqual([]);
  }, 120_000);
});
