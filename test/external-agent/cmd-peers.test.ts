/**
 * External agents as peers through `--agent-cli 'cmd:…'`: the built `colony run --topology peers`
 * against the fake provider over HTTP, each CLI-driven peer a mini external agent (mini-agent.mjs:
 * Colony's tools over MCP with the official client, its model turns through the metering proxy with
 * the `openai` package), in the run's bubblewrap sandbox (no network: it reaches the host server
 * through the socket forwarder). Asserted: claims, merges, events, and exact token accounting (one
 * model.response per proxied call, with the usage the client saw).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { colony, fakeModelFlags } from '../helpers/cli.js';
import {
  brokenModulesRepo,
  expectNoTokenInLog,
  MINI_AGENT,
  OPENAI_CHAT,
  ofAgent,
  ofKind,
  onResultBranch,
  runColony,
  useFakeProvider,
  useTestStore,
} from './harness.js';
import { MODULES, modulePolicy } from './policy.js';

const VERIFY = `! grep -rqx broken src`;

const store = useTestStore();
const fake = useFakeProvider({ policy: modulePolicy, requireKey: OPENAI_CHAT.key });

const repo = (modules: string[]) => brokenModulesRepo(modules, 'colony-agent-cli-', '# modules\n');

async function runPeers(agents: number, extra: string[]) {
  const r = repo(MODULES.slice(0, agents));
  const run = await runColony(store(), {
    topology: 'peers',
    agents,
    repo: r.dir,
    goal: 'fix every module',
    access: OPENAI_CHAT,
    url: fake().url,
    verify: VERIFY,
    // Each merge lands one module: the merge check passes on partial progress.
    extra: ['--merge-verify', 'true', ...extra],
    timeoutMs: 180_000,
  });
  expect(run.result.code, `${run.result.stderr}\n${run.result.stdout.slice(-3000)}`).toBe(0);
  return { ...run, repo: r };
}

/** The usage the mini agent printed (in its agent.finished reason: the output tail). */
function clientUsage(events: StoredEvent[], agent: string) {
  const finished = ofAgent(events, 'agent.finished', agent)[0];
  const match = /mini-agent usage (\{.*\})/.exec(finished?.data.reason ?? '');
  expect(match, finished?.data.reason).not.toBeNull();
  return JSON.parse(match?.[1] ?? '{}') as { calls: number; input: number; output: number; tools: string[] };
}

function checkAccounting(events: StoredEvent[], agent: string) {
  const used = clientUsage(events, agent);
  const responses = ofAgent(events, 'model.response', agent);
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
  const seen = fake()
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
      const started = ofAgent(events, 'agent.started', agent)[0];
      expect(started?.data.system).toMatch(new RegExp(`Your peer ID is ${agent}\\.$`));
      const cli = ofAgent(events, 'agent.cli', agent);
      expect(cli.map((e) => e.data.event)).toEqual(['started', 'exited']);
      expect(cli[1]?.data.exitCode).toBe(0);
      const finished = ofAgent(events, 'agent.finished', agent);
      expect(finished).toHaveLength(1);
      expect(finished[0]?.data).toMatchObject({ status: 'done', stopReason: 'answered' });
      const granted = ofAgent(events, 'claim.granted', agent);
      expect(granted.map((e) => e.data.scope)).toEqual([`src/${module}/`]);
      const released = ofAgent(events, 'claim.released', agent);
      expect(released.map((e) => e.data.outcome)).toContain(`fixed ${module}`);
      const requested = ofAgent(events, 'merge.requested', agent);
      expect(requested).toHaveLength(1);
      const landed = ofKind(events, 'merge.landed').filter((e) =>
        e.data.batch.includes(requested[0]?.data.mr ?? -1),
      );
      expect(landed).toHaveLength(1);
      const { responses } = checkAccounting(events, agent);
      expect(finished[0]?.data.steps).toBe(responses.length);
      // The file came from the agent's checkout through the queue onto the result branch.
      expect(onResultBranch(r.dir, runId, `src/${module}/value.txt`)).toBe(`fixed ${module}\n`);
    }
    // Tokens never reach the log in the clear.
    expectNoTokenInLog(events);
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
    expect(ofAgent(events, 'agent.cli', 'peer-1')).toHaveLength(0);
    const builtInTools = ofAgent(events, 'tool.finished', 'peer-1').map((e) => e.data.name);
    expect(builtInTools).toEqual(['claim', 'write', 'merge_request', 'release']);
    expect(ofAgent(events, 'agent.cli', 'peer-2').map((e) => e.data.event)).toEqual(['started', 'exited']);
    for (const agent of ['peer-1', 'peer-2'])
      expect(ofAgent(events, 'agent.finished', agent)[0]?.data.status).toBe('done');
    expect(ofKind(events, 'merge.landed').length).toBeGreaterThanOrEqual(1);
    checkAccounting(events, 'peer-2');
  }, 240_000);

  it('a failing command fails its peer with its output in the reason', async () => {
    const r = repo(['alpha']);
    const { summary, events } = await runColony(store(), {
      topology: 'peers',
      agents: 1,
      repo: r.dir,
      goal: 'fix',
      access: OPENAI_CHAT,
      url: fake().url,
      verify: VERIFY,
      extra: ['--agent-cli', `cmd:echo "it broke: $COLONY_AGENT" >&2; exit 3`],
      timeoutMs: 120_000,
    });
    expect(summary.status).toBe('failed');
    const finished = ofAgent(events, 'agent.finished', 'peer-1')[0];
    expect(finished?.data).toMatchObject({ status: 'failed', stopReason: 'cli_failed' });
    expect(finished?.data.reason).toContain('exited 3');
    expect(finished?.data.reason).toContain('it broke: peer-1');
  }, 180_000);

  it('usage errors: an unknown kind, a topology without peers, an unknown peer', async () => {
    const r = repo(['alpha']);
    const base = ['run', '--repo', r.dir, '--goal', 'x', ...fakeModelFlags(fake().url), '--verify', 'true'];
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
