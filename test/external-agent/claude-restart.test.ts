/**
 * Crash → restart with resume, with the real Claude Code (the pinned devDependency) as a peer: the
 * fake provider's script kills its process with SIGKILL while it waits for the turn after its claim.
 * Colony restarts it with `--resume <session>`; the resumed session still holds the claim (its next
 * turns — Read, Write, merge_request, release — follow the script) and the peer finishes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESUME_TEXT } from '../../src/external-agent/adapter.js';
import { claudePolicy } from './claude-policy.js';
import {
  ANTHROPIC,
  brokenModulesRepo,
  CLAUDE_CODE_CLI,
  cliLifecycle,
  killAfterClaim,
  ofAgent,
  ofKind,
  peerCliFiles,
  processesWhere,
  runCliPeer,
  toolCallsOf,
  useFakeProvider,
  useTestStore,
} from './harness.js';

/** This run's goal: in Claude Code's command line (the appended peer prompt holds it). */
const GOAL = `fix every module (crash test ${randomUUID()})`;

/**
 * claudePolicy, but the first time Claude Code asks for the turn after its claim, it is killed once
 * its transcript holds the claim's result (Claude Code writes it on its own schedule).
 */
const crash = killAfterClaim(
  claudePolicy,
  // Whether Claude Code's transcript of this run (in its config folder) holds a tool result yet.
  () =>
    peerCliFiles('peer-1', join('.claude', 'projects'))
      .filter((file) => file.endsWith('.jsonl'))
      .some((file) => {
        const text = readFileSync(file, 'utf8');
        return text.includes(GOAL) && text.includes('"tool_result"');
      }),
  // The node process running cli.js (not the sandbox or the forwarder holding it as an argument).
  () =>
    processesWhere(
      (argv) => !!argv[1]?.endsWith('claude-code/cli.js') && argv.some((arg) => arg.includes(GOAL)),
    ),
);

const store = useTestStore();
const fake = useFakeProvider({ policy: crash.policy, requireKey: ANTHROPIC.key });

describe.skipIf(!existsSync(CLAUDE_CODE_CLI))('--agent-cli claude-code: crash and resume', () => {
  it('restarts Claude Code killed mid-run with --resume of its session', async () => {
    const r = brokenModulesRepo(['alpha'], 'colony-claude-crash-');
    const { summary, events, context } = await runCliPeer(store(), fake(), {
      cli: 'claude-code',
      repo: r.dir,
      goal: GOAL,
    });
    expect(crash.killed().length, context).toBe(1);
    expect(summary.status, context).toBe('succeeded');
    const reports = ofAgent(events, 'agent.cli', 'peer-1');
    const cli = cliLifecycle(reports);
    expect(
      cli.map((e) => e.data.event),
      context,
    ).toEqual(['started', 'session', 'exited', 'restarted', 'started', 'session', 'exited']);
    const [session, restarted, again] = [cli[1], cli[3], cli[5]].map((e) => e?.data.sessionId);
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    // The restart resumed the session the killed process had.
    expect(restarted).toBe(session);
    expect(again).toBe(session);
    for (const e of reports.filter((r) => r.data.event === 'session')) expect(e.data.sessionId).toBe(session);
    // Killed inside the sandbox: the forwarder reports a death by signal as 128.
    expect(cli[2]?.data.exitCode).toBe(128);
    expect(cli[6]?.data.exitCode).toBe(0);
    // The restarted process resumed the conversation: its requests hold the goal (only the killed
    // process was given it), its claim and then the restart note. The interrupted turn itself is
    // dropped by Claude Code ("Continue from where you left off."): the script asks for Read again.
    const afterRestart = fake()
      .requests()
      .filter((q) => (q.request?.tools.length ?? 0) > 0)
      .map((q) => JSON.stringify(q.request?.messages ?? []))
      .filter((m) => m.includes(RESUME_TEXT));
    expect(afterRestart.length, context).toBeGreaterThan(0);
    for (const m of afterRestart) expect(m.includes(GOAL) && m.includes('mcp__colony__claim'), m).toBe(true);
    const tools = toolCallsOf(events, 'peer-1');
    expect(tools.filter((name) => name === 'mcp__colony__claim')).toHaveLength(1);
    expect(tools.slice(-4)).toEqual(['Read', 'Write', 'mcp__colony__merge_request', 'mcp__colony__release']);
    expect(new Set(ofKind(events, 'claim.granted').map((e) => e.data.scope))).toEqual(
      new Set(['src/alpha/']),
    );
    expect(ofKind(events, 'merge.landed')).toHaveLength(1);
    expect(ofAgent(events, 'agent.finished', 'peer-1')[0]?.data).toMatchObject({
      status: 'done',
      stopReason: 'answered',
    });
  }, 300_000);
});
