/**
 * The real Codex CLI (the pinned devDependency @openai/codex) as a peer in
 * `colony run --topology peers --agent-cli codex`, in the run's bubblewrap sandbox: its model turns
 * come from the fake provider (OpenAI Responses, streamed) through the metering proxy, scripted
 * (codex-policy.ts): claim over MCP, its own shell tool writes the fix, merge_request and release
 * over MCP. Not skipped when Codex is missing: it is a pinned devDependency, so that is a failure.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codexPolicy, codexUsage } from './codex-policy.js';
import {
  brokenModulesRepo,
  CODEX_CLI,
  expectNoTokenInLog,
  OPENAI_RESPONSES,
  ofAgent,
  ofKind,
  onResultBranch,
  runCliPeer,
  useFakeProvider,
  useTestStore,
} from './harness.js';

const store = useTestStore();
const fake = useFakeProvider({
  policy: codexPolicy((peer) =>
    peer === 1
      ? {
          scope: 'src/alpha/',
          // Writes only if the commands Codex runs do not see the agent's token or a key.
          command:
            'test -z "$COLONY_AGENT_TOKEN$OPENAI_API_KEY" && printf \'fixed alpha\\n\' > src/alpha/value.txt',
          note: 'fix alpha',
        }
      : undefined,
  ),
  requireKey: OPENAI_RESPONSES.key,
});

describe('--agent-cli codex', () => {
  it('Codex claims over MCP, writes with its shell tool, merges through the queue and releases', async () => {
    expect(existsSync(CODEX_CLI), 'the pinned @openai/codex devDependency is not installed (npm ci)').toBe(
      true,
    );
    const r = brokenModulesRepo(['alpha'], 'colony-codex-');
    const { summary, runId, events, context } = await runCliPeer(store(), fake(), {
      cli: 'codex',
      repo: r.dir,
    });
    expect(summary.status, context).toBe('succeeded');

    const cli = ofAgent(events, 'agent.cli', 'peer-1');
    expect(cli.map((e) => e.data.event)).toEqual(['started', 'session', 'exited']);
    expect(cli[0]?.data.pid).toBeGreaterThan(0);
    expect(cli[1]?.data.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(cli[2]?.data.exitCode).toBe(0);
    expect(ofKind(events, 'claim.granted').map((e) => [e.agent, e.data.scope])).toEqual([
      ['peer-1', 'src/alpha/'],
    ]);
    expect(ofKind(events, 'claim.released').map((e) => e.data.outcome)).toEqual(['done: fix alpha']);
    const requested = ofKind(events, 'merge.requested');
    expect(requested.map((e) => e.agent)).toEqual(['peer-1']);
    const landed = ofKind(events, 'merge.landed');
    expect(landed).toHaveLength(1);
    expect(landed[0]?.data.batch).toContain(requested[0]?.data.mr);
    // Codex's own shell wrote the file in its checkout; the queue brought it onto the result branch.
    expect(onResultBranch(r.dir, runId, 'src/alpha/value.txt')).toBe('fixed alpha\n');

    // One model.response per proxied call, with exactly the usage the fake provider reported
    // (cached input apart), and the fake provider saw as many calls, with the real key only.
    const responses = ofAgent(events, 'model.response', 'peer-1');
    expect(responses.map((e) => e.data.step)).toEqual([1, 2, 3, 4, 5]);
    expect(responses.map((e) => e.data.turn.usage)).toEqual(
      responses.map((_, i) => expect.objectContaining(codexUsage(i))),
    );
    // Colony's tools as Claude Code names them: `<namespace>__<name>` (the call's namespace kept).
    expect(responses.map((e) => e.data.turn.toolCalls.map((c) => c.name))).toEqual([
      ['mcp__colony__claim'],
      ['exec_command'],
      ['mcp__colony__merge_request'],
      ['mcp__colony__release'],
      [],
    ]);
    const seen = fake().requests();
    expect(seen).toHaveLength(responses.length);
    expect(
      seen.every((q) => q.path === '/v1/responses' && q.headers.authorization === 'Bearer sk-real'),
    ).toBe(true);
    expect(seen.every((q) => !JSON.stringify(q.headers).includes('colony_at_'))).toBe(true);
    // Codex saw Colony's tools under its MCP namespace, beside its own shell.
    const tools = seen[0]?.request?.tools.map((t) => t.name) ?? [];
    expect(tools).toEqual(
      expect.arrayContaining(['exec_command', 'mcp__colony__claim', 'mcp__colony__release']),
    );

    const finished = ofAgent(events, 'agent.finished', 'peer-1')[0];
    expect(finished?.data).toMatchObject({
      status: 'done',
      stopReason: 'answered',
      steps: responses.length,
      finalText: 'fix alpha: merged and released',
    });
    // The agent's token never reaches the log.
    expectNoTokenInLog(events);
  }, 300_000);
});
