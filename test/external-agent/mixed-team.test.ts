/**
 * A mixed team finishes Colony's demo repository (examples/demo-repo): peer-1 runs Colony's own loop
 * (OpenAI Chat), peer-2 the real Claude Code (Anthropic) and peer-3 the real Codex (OpenAI
 * Responses), each CLI on a model of its own protocol
 * (`--agent-cli-peers peer-2=claude-code@anthropic:…,peer-3=codex@openai-responses:…`), all through
 * the fake provider, the CLIs in the run's sandbox behind the metering proxy. Also: the usage errors
 * of the per-peer syntax.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createDemoRepo } from '../../src/demo/demo-repo.js';
import { PEERS_DEMO_MERGE_VERIFY } from '../../src/demo/peers-policy.js';
import { colony, fakeModelFlags, NO_API_KEYS } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { demoTeamPolicy } from './demo-team-policy.js';
import {
  expectNoTokenInLog,
  OPENAI_CHAT,
  ofAgent,
  ofKind,
  runColony,
  useFakeProvider,
  useTestStore,
} from './harness.js';

const store = useTestStore();
const fake = useFakeProvider({ policy: demoTeamPolicy, requireKey: 'sk-real' });

/** The real key and the fake provider for every protocol (the CLIs' models are not the run's). */
const ENV = {
  ...NO_API_KEYS,
  OPENAI_API_KEY: 'sk-real',
  ANTHROPIC_API_KEY: 'sk-real',
};

describe('a mixed team: built-in, Claude Code and Codex peers', () => {
  it('finishes the demo repository together', async () => {
    const dir = createDemoRepo('demo-repo');
    const { summary, runId, events, context } = await runColony(store(), {
      topology: 'peers',
      agents: 3,
      repo: dir,
      goal: 'make every test pass',
      access: OPENAI_CHAT,
      url: fake().url,
      verify: 'node --test test/',
      extra: [
        '--merge-verify',
        PEERS_DEMO_MERGE_VERIFY,
        '--agent-cli-peers',
        'peer-2=claude-code@anthropic:fake-model,peer-3=codex@openai-responses:fake-model',
      ],
      env: { ...ENV, OPENAI_BASE_URL: fake().url, ANTHROPIC_BASE_URL: fake().url },
      timeoutMs: 240_000,
    });
    expect(summary.status, context).toBe('succeeded');

    const fixes = { 'peer-1': 'slugify', 'peer-2': 'word-count', 'peer-3': 'parse-duration' } as const;
    for (const [agent, module] of Object.entries(fixes)) {
      const granted = ofAgent(events, 'claim.granted', agent);
      expect(granted.map((e) => e.data.scope)).toEqual([`src/${module}.js`]);
      const released = ofAgent(events, 'claim.released', agent);
      expect(released.map((e) => e.data.outcome)).toEqual([`done: fix ${module}`]);
      const requested = ofAgent(events, 'merge.requested', agent);
      expect(requested).toHaveLength(1);
      const landed = ofKind(events, 'merge.landed').filter((e) =>
        e.data.batch.includes(requested[0]?.data.mr ?? -1),
      );
      expect(landed, context).toHaveLength(1);
      const finished = ofAgent(events, 'agent.finished', agent);
      expect(finished.map((e) => [e.data.status, e.data.stopReason])).toEqual([['done', 'answered']]);
      const responses = ofAgent(events, 'model.response', agent);
      expect(finished[0]?.data.steps).toBe(responses.length);
    }
    // peer-1 ran Colony's loop (its tools logged by the loop); peer-2 and peer-3 their CLIs.
    expect(ofAgent(events, 'agent.cli', 'peer-1')).toHaveLength(0);
    expect(ofAgent(events, 'tool.finished', 'peer-1').map((e) => e.data.name)).toEqual([
      'claim',
      'write',
      'merge_request',
      'release',
    ]);
    for (const [agent, cli] of [
      ['peer-2', 'claude-code'],
      ['peer-3', 'codex'],
    ] as const) {
      const lifecycle = ofAgent(events, 'agent.cli', agent);
      expect(lifecycle.map((e) => [e.data.cli, e.data.event])).toEqual([
        [cli, 'started'],
        [cli, 'session'],
        [cli, 'exited'],
      ]);
    }
    // Each CLI's calls went to the fake provider in its own protocol, with the model named for it.
    const paths = new Set(
      fake()
        .requests()
        .map((q) => q.path),
    );
    expect(paths).toEqual(new Set(['/v1/chat/completions', '/v1/messages', '/v1/responses']));
    expect(ofAgent(events, 'model.response', 'peer-3').every((e) => e.data.turn.model === 'fake-model')).toBe(
      true,
    );

    // The result branch passes the demo's tests; the tokens never reached the log.
    execFileSync('git', ['-C', dir, 'checkout', '-q', `colony/${runId}`]);
    execFileSync('node', ['--test', 'test/'], { cwd: dir, stdio: 'pipe' });
    expectNoTokenInLog(events);
  }, 300_000);

  it('usage errors of --agent-cli-peers entries', async () => {
    const r = createUserRepo({ 'README.md': '# m\n' }, 'colony-mixed-usage-');
    const base = ['run', '--repo', r.dir, '--goal', 'x', ...fakeModelFlags(fake().url), '--verify', 'true'];
    const peers = (value: string, ...extra: string[]) =>
      colony([...base, '--topology', 'peers', '--agents', '3', '--agent-cli-peers', value, ...extra], {
        env: ENV,
      });
    const cases: [string[], string][] = [
      [
        ['peer-2=aider'],
        "--agent-cli-peers peer-2: --agent-cli must be claude-code, codex or 'cmd:<command>'",
      ],
      [['peer-2'], "--agent-cli-peers peer-2 takes --agent-cli's CLI"],
      [['peer-3=codex@'], '--agent-cli-peers peer-3=codex@ needs a model id after @'],
      [['peer-2=codex,peer-2=claude-code'], '"peer-2" twice'],
      [['peer-4=codex'], 'not "peer-4"'],
      [['peer-2=cmd:'], "--agent-cli-peers peer-2: --agent-cli 'cmd:<command>' needs a command after cmd:"],
    ];
    for (const [[value, ...extra], message] of cases) {
      const run = await peers(value ?? '', ...extra);
      expect(run.code, `${value}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(message);
    }
    const solo = await colony([...base, '--agent-cli-peers', 'peer-1=codex'], { env: ENV });
    expect(solo.code).toBe(2);
    expect(solo.stderr).toContain('--agent-cli needs --topology peers');
  }, 120_000);
});
