/**
 * External agents as peers through `--agent-cli 'cmd:…'`: the built `colony run --topology peers`
 * against the fake provider over HTTP, each CLI-driven peer a mini external agent (mini-agent.mjs:
 * Colony's tools over MCP with the official client, its model turns through the metering proxy with
 * the `openai` package), in the run's bubblewrap sandbox (no network: it reaches the host server
 * through the socket forwarder). Asserted: claims, merges, events, and exact token accounting (one
 * model.response per proxied call, with the usage the client saw).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { MODULES, modulePolicy } from './policy.js';

const MINI_AGENT = join(import.meta.dirname, 'mini-agent.mjs');
const VERIFY = `! grep -rqx broken src`;

let store: Store;
let fake: FakeProvider;
beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy: modulePolicy, requireKey: 'sk-real-key' });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

function repo(modules: string[]) {
  const files: Record<string, string> = { 'README.md': '# modules\n' };
  for (const m of modules) files[`src/${m}/value.txt`] = 'broken\n';
  return createUserRepo(files, 'colony-agent-cli-');
}

async function runPeers(agents: number, extra: string[]) {
  const r = repo(MODULES.slice(0, agents));
  const result = await colony(
    [
      'run',
      '--topology',
      'peers',
      '--agents',
      String(agents),
      '--repo',
      r.dir,
      '--goal',
      'fix every module',
      ...fakeModelFlags(fake.url),
      '--verify',
      VERIFY,
      // Each merge lands one module: the merge check passes on partial progress.
      '--merge-verify',
      'true',
      '--json',
      ...extra,
    ],
    { env: { ...NO_API_KEYS, OPENAI_API_KEY: 'sk-real-key' }, timeoutMs: 180_000 },
  );
  expect(result.code, `${result.stderr}\n${result.stdout.slice(-3000)}`).toBe(0);
  const summary = lastJsonLine(result.stdout);
  const runId = summary.runId as string;
  return { runId, summary, events: await store.log.read(runId), repo: r };
}

const ofKind = <K extends StoredEvent['kind']>(events: StoredEvent[], kind: K) =>
  events.filter((e): e is StoredEvent<K> => e.kind === kind);

/** The usage the mini agent printed (in its agent.finished reason: the output tail). */
function clientUsage(events: StoredEvent[], agent: string) {
  const finished = ofKind(events, 'agent.finished').find((e) => e.agent === agent);
  const match = /mini-agent usage (\{.*\})/.exec(finished?.data.reason ?? '');
  expect(match, finished?.data.reason).not.toBeNull();
  return JSON.parse(match?.[1] ?? '{}') as { calls: number; input: number; output: number; tools: string[] };
}

function checkAccounting(events: StoredEvent[], agent: string) {
  const used = clientUsage(events, agent);
  const responses = ofKind(events, 'model.response').filter((e) => e.agent === agent);
  expect(responses.length).toBe(used.calls);
  expect(responses.map((e) => e.data.step)).toEqual(responses.map((_, i) => i + 1));
  const input = responses.reduce(
    (n, e) => n + e.data.turn.usage.input + (e.data.turn.usage.cachedInput ?? 0),
    0,
  );
  const output = responses.reduce((n, e) => n + e.data.turn.usage.output, 0);
  expect(input).toBe(used.input);
  expect(output).toBe(used.output);
  expect(used.tools).toEqual(['claim', 'write', 'merge_request', 'release']);
  // The fake provider saw exactly these calls for this peer, with the real key, never the token.
  const peerN = agent.replace('peer-', '');
  const seen = fake
    .requests()
    .filter((r) => new RegExp(`Your peer ID is peer-${peerN}\\.\\s*$`).test(r.request?.system ?? ''));
  expect(seen.length).toBeGreaterThanOrEqual(used.calls);
  return { used, responses };
}

describe('--agent-cli cmd: external agents as peers', () => {
  it('two mini agents in the sandbox claim, merge through the queue and finish the goal', async () => {
    const { runId, summary, events, repo: r } = await runPeers(2, ['--agent-cli', `cmd:node ${MINI_AGENT}`]);
    expect(summary.status).toBe('succeeded');
    for (const [i, agent] of ['peer-1', 'peer-2'].entries()) {
      const module = MODULES[i] ?? '';
      const started = ofKind(events, 'agent.started').find((e) => e.agent === agent);
      expect(started?.data.system).toMatch(new RegExp(`Your peer ID is ${agent}\\.$`));
      const cli = ofKind(events, 'agent.cli').filter((e) => e.agent === agent);
      expect(cli.map((e) => e.data.event)).toEqual(['started', 'exited']);
      expect(cli[1]?.data.exitCode).toBe(0);
      const finished = ofKind(events, 'agent.finished').filter((e) => e.agent === agent);
      expect(finished).toHaveLength(1);
      expect(finished[0]?.data).toMatchObject({ status: 'done', stopReason: 'answered' });
      const granted = ofKind(events, 'claim.granted').filter((e) => e.agent === agent);
      expect(granted.map((e) => e.data.scope)).toEqual([`src/${module}/`]);
      const released = ofKind(events, 'claim.released').filter((e) => e.agent === agent);
      expect(released.map((e) => e.data.outcome)).toContain(`fixed ${module}`);
      const requested = ofKind(events, 'merge.requested').filter((e) => e.agent === agent);
      expect(requested).toHaveLength(1);
      const landed = ofKind(events, 'merge.landed').filter((e) =>
        e.data.batch.includes(requested[0]?.data.mr ?? -1),
      );
      expect(landed).toHaveLength(1);
      const { responses } = checkAccounting(events, agent);
      expect(finished[0]?.data.steps).toBe(responses.length);
      // The file came from the agent's checkout through the queue onto the result branch.
      const { execFileSync } = await import('node:child_process');
      const onBranch = execFileSync('git', ['-C', r.dir, 'show', `colony/${runId}:src/${module}/value.txt`], {
        encoding: 'utf8',
      });
      expect(onBranch).toBe(`fixed ${module}\n`);
    }
    // Tokens never reach the log in the clear.
    expect(JSON.stringify(events)).not.toMatch(/colony_at_[A-Za-z0-9_-]{20,}/);
    expect(readFileSync(MINI_AGENT, 'utf8')).toContain('OpenAI');
  }, 240_000);

  it('a mixed team: one built-in peer and one mini agent finish together', async () => {
    const { summary, events } = await runPeers(2, [
      '--agent-cli',
      `cmd:node ${MINI_AGENT}`,
      '--agent-cli-peers',
      'peer-2',
    ]);
    expect(summary.status).toBe('succeeded');
    // peer-1 runs Colony's own loop (its tool calls are logged by the loop), peer-2 the CLI.
    expect(ofKind(events, 'agent.cli').filter((e) => e.agent === 'peer-1')).toHaveLength(0);
    const builtInTools = ofKind(events, 'tool.finished')
      .filter((e) => e.agent === 'peer-1')
      .map((e) => e.data.name);
    expect(builtInTools).toEqual(['claim', 'write', 'merge_request', 'release']);
    expect(
      ofKind(events, 'agent.cli')
        .filter((e) => e.agent === 'peer-2')
        .map((e) => e.data.event),
    ).toEqual(['started', 'exited']);
    for (const agent of ['peer-1', 'peer-2'])
      expect(ofKind(events, 'agent.finished').find((e) => e.agent === agent)?.data.status).toBe('done');
    expect(ofKind(events, 'merge.landed').length).toBeGreaterThanOrEqual(1);
    checkAccounting(events, 'peer-2');
  }, 240_000);

  it('a failing command fails its peer with its output in the reason', async () => {
    const r = repo(['alpha']);
    const result = await colony(
      [
        'run',
        '--topology',
        'peers',
        '--agents',
        '1',
        '--repo',
        r.dir,
        '--goal',
        'fix',
        ...fakeModelFlags(fake.url),
        '--verify',
        VERIFY,
        '--json',
        '--agent-cli',
        `cmd:echo "it broke: $COLONY_AGENT" >&2; exit 3`,
      ],
      { env: { ...NO_API_KEYS, OPENAI_API_KEY: 'sk-real-key' }, timeoutMs: 120_000 },
    );
    const summary = lastJsonLine(result.stdout);
    expect(summary.status).toBe('failed');
    const events = await store.log.read(summary.runId as string);
    const finished = ofKind(events, 'agent.finished').find((e) => e.agent === 'peer-1');
    expect(finished?.data).toMatchObject({ status: 'failed', stopReason: 'cli_failed' });
    expect(finished?.data.reason).toContain('exited 3');
    expect(finished?.data.reason).toContain('it broke: peer-1');
  }, 180_000);

  it('usage errors: an unknown kind, a topology without peers, an unknown peer', async () => {
    const r = repo(['alpha']);
    const base = ['run', '--repo', r.dir, '--goal', 'x', ...fakeModelFlags(fake.url), '--verify', 'true'];
    const unknown = await colony([...base, '--topology', 'peers', '--agents', '1', '--agent-cli', 'aider']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--agent-cli must be claude-code, codex or 'cmd:<command>'");
    const solo = await colony([...base, '--agent-cli', 'cmd:true']);
    expect(solo.code).toBe(2);
    expect(solo.stderr).toContain('--agent-cli needs --topology peers');
    const peers = await colony([
      ...base,
      '--topology',
      'peers',
      '--agents',
      '2',
      '--agent-cli',
      'cmd:true',
      '--agent-cli-peers',
      'peer-3',
    ]);
    expect(peers.code).toBe(2);
    expect(peers.stderr).toContain('not "peer-3"');
  }, 60_000);
});
