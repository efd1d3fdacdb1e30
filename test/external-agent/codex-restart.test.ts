/**
 * Crash → restart with resume, with the real Codex (the pinned devDependency) as a peer: the fake
 * provider's script kills its process with SIGKILL while it waits for the turn after its claim (once
 * its session file holds the claim's result). Colony restarts it with `codex exec resume <thread>`;
 * the resumed thread still holds the claim and the peer finishes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESUME_TEXT } from '../../src/external-agent/adapter.js';
import { codexPolicy } from './codex-policy.js';
import {
  brokenModulesRepo,
  CODEX_CLI,
  cliLifecycle,
  killAfterClaim,
  OPENAI_RESPONSES,
  ofAgent,
  ofKind,
  peerCliFiles,
  processesWhere,
  runCliPeer,
  toolCallsOf,
  useFakeProvider,
  useTestStore,
} from './harness.js';

/** This run's goal: in Codex's command line. */
const GOAL = `fix every module (crash test ${randomUUID()})`;

const inner = codexPolicy((peer) =>
  peer === 1
    ? { scope: 'src/alpha/', command: "printf 'fixed alpha\\n' > src/alpha/value.txt", note: 'fix alpha' }
    : undefined,
);
const crash = killAfterClaim(
  inner,
  // Whether Codex's session file of this run holds a tool call's output yet.
  () =>
    peerCliFiles('peer-1', join('.codex', 'sessions')).some((file) => {
      const text = readFileSync(file, 'utf8');
      return text.includes(GOAL) && text.includes('function_call_output');
    }),
  // Codex's native processes of this test's run (not its node launcher, not the sandbox's).
  () => processesWhere((argv) => /(^|\/)codex$/.test(argv[0] ?? '') && argv.includes(GOAL)),
);

const store = useTestStore();
const fake = useFakeProvider({ policy: crash.policy, requireKey: OPENAI_RESPONSES.key });

describe.skipIf(!existsSync(CODEX_CLI))('--agent-cli codex: crash and resume', () => {
  it('restarts Codex killed mid-run with exec resume of its thread', async () => {
    const r = brokenModulesRepo(['alpha'], 'colony-codex-crash-');
    const { summary, events, context } = await runCliPeer(store(), fake(), {
      cli: 'codex',
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
    const [thread, restarted, again] = [cli[1], cli[3], cli[5]].map((e) => e?.data.sessionId);
    expect(thread).toMatch(/^[0-9a-f-]{36}$/);
    expect(restarted).toBe(thread);
    expect(again).toBe(thread);
    for (const e of reports.filter((r) => r.data.event === 'session')) expect(e.data.sessionId).toBe(thread);
    expect(cli[6]?.data.exitCode).toBe(0);
    // The resumed thread holds the goal, the claim and its result, then the restart note.
    const afterRestart = fake()
      .requests()
      .map((q) => JSON.stringify(q.request?.messages ?? []))
      .filter((m) => m.includes(RESUME_TEXT));
    expect(afterRestart.length, context).toBeGreaterThan(0);
    for (const m of afterRestart) expect(m.includes(GOAL) && m.includes('mcp__colony__claim'), m).toBe(true);
    const tools = toolCallsOf(events, 'peer-1');
    expect(tools.filter((name) => name === 'mcp__colony__claim')).toHaveLength(1);
    expect(tools.slice(-3)).toEqual(['exec_command', 'mcp__colony__merge_request', 'mcp__colony__release']);
    expect(ofKind(events, 'merge.landed')).toHaveLength(1);
  }, 300_000);
});
