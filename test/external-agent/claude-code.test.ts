/**
 * The real Claude Code CLI (the pinned devDependency @anthropic-ai/claude-code) as a peer in
 * `colony run --topology peers --agent-cli claude-code`: its model turns come from the fake provider
 * (Anthropic protocol) through the metering proxy, scripted (claude-policy.ts): claim over MCP, its
 * own Read and Write, merge_request and release over MCP.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claudePolicy } from './claude-policy.js';
import {
  ANTHROPIC,
  brokenModulesRepo,
  CLAUDE_CODE_CLI,
  ofAgent,
  ofKind,
  runCliPeer,
  useFakeProvider,
  useTestStore,
} from './harness.js';

const store = useTestStore();
const fake = useFakeProvider({ policy: claudePolicy, requireKey: ANTHROPIC.key });

describe.skipIf(!existsSync(CLAUDE_CODE_CLI))('--agent-cli claude-code', () => {
  it('Claude Code claims, writes with its own tool, merges through the queue and releases', async () => {
    const r = brokenModulesRepo(['alpha'], 'colony-claude-');
    const { summary, events, context } = await runCliPeer(store(), fake(), {
      cli: 'claude-code',
      repo: r.dir,
      extra: process.env.COLONY_TEST_CLAUDE_SANDBOX === 'off' ? ['--sandbox', 'off'] : [],
    });
    expect(summary.status, context).toBe('succeeded');
    const cli = ofAgent(events, 'agent.cli', 'peer-1');
    expect(cli.map((e) => e.data.event)).toEqual(['started', 'session', 'exited']);
    expect(cli[1]?.data.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ofKind(events, 'claim.granted').map((e) => e.data.scope)).toEqual(['src/alpha/']);
    expect(ofKind(events, 'claim.released').map((e) => e.data.outcome)).toContain('fixed alpha');
    expect(ofKind(events, 'merge.landed')).toHaveLength(1);
    const finished = ofAgent(events, 'agent.finished', 'peer-1')[0];
    expect(finished?.data).toMatchObject({ status: 'done', stopReason: 'answered' });
    // Every call Claude Code made through the proxy is one model.response of peer-1, and the fake
    // provider saw exactly as many (with the real key; the agent's token never left Colony).
    const responses = ofAgent(events, 'model.response', 'peer-1');
    const seen = fake().requests();
    expect(responses.length).toBe(seen.length);
    expect(seen.every((q) => !JSON.stringify(q.headers).includes('colony_at_'))).toBe(true);
    expect(responses.length).toBe(finished?.data.steps);
    const tools = responses.flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
    expect(tools).toEqual([
      'mcp__colony__claim',
      'Read',
      'Write',
      'mcp__colony__merge_request',
      'mcp__colony__release',
    ]);
  }, 300_000);
});
