/**
 * Crash → restart with resume, with the real Claude Code (the pinned devDependency) as a peer: the
 * fake provider's script kills its process with SIGKILL while it waits for the turn after its claim.
 * Colony restarts it with `--resume <session>`; the resumed session still holds the claim (its next
 * turns — Read, Write, merge_request, release — follow the script) and the peer finishes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESUME_TEXT } from '../../src/agent-cli/adapter.js';
import type { StoredEvent } from '../../src/core/events.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { resolveHome, type Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { claudePolicy } from './claude-policy.js';

const CLAUDE = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@anthropic-ai',
  'claude-code',
  'cli.js',
);

/** This run's goal: in Claude Code's command line (the appended peer prompt holds it). */
const GOAL = `fix every module (crash test ${randomUUID()})`;

/** The Claude Code processes of this test's run. */
function claudeOfRun(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The node process running cli.js (not the sandbox or the forwarder holding it as an argument).
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv[1]?.endsWith('claude-code/cli.js') && argv.some((arg) => arg.includes(GOAL)))
        pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** Whether Claude Code's transcript of this run (in its config folder) holds a tool result yet. */
function transcriptHasToolResult(): boolean {
  const runs = join(resolveHome(), 'runs');
  for (const run of existsSync(runs) ? readdirSync(runs) : []) {
    const projects = join(runs, run, 'agent-cli', 'peer-1', '.claude', 'projects');
    if (!existsSync(projects)) continue;
    for (const project of readdirSync(projects))
      for (const file of readdirSync(join(projects, project))) {
        if (!file.endsWith('.jsonl')) continue;
        const text = readFileSync(join(projects, project, file), 'utf8');
        if (text.includes(GOAL) && text.includes('"tool_result"')) return true;
      }
  }
  return false;
}

let killed: number[] = [];
/**
 * claudePolicy, but the first time Claude Code asks for the turn after its claim, it is killed once
 * its transcript holds the claim's result (Claude Code writes it on its own schedule).
 */
const crashingPolicy: ScriptedPolicy = async (request, index) => {
  const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
  if (killed.length === 0 && calls.at(-1)?.name === 'mcp__colony__claim') {
    for (let i = 0; i < 200 && !transcriptHasToolResult(); i++) await new Promise((r) => setTimeout(r, 100));
    killed = claudeOfRun();
    for (const pid of killed) process.kill(pid, 'SIGKILL');
  }
  return claudePolicy(request, index);
};

let store: Store;
let fake: FakeProvider;
beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy: crashingPolicy, requireKey: 'sk-ant-real' });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

const ofKind = <K extends StoredEvent['kind']>(events: StoredEvent[], kind: K) =>
  events.filter((e): e is StoredEvent<K> => e.kind === kind);

describe.skipIf(!existsSync(CLAUDE))('--agent-cli claude-code: crash and resume', () => {
  it('restarts Claude Code killed mid-run with --resume of its session', async () => {
    const r = createUserRepo(
      { 'README.md': '# m\n', 'src/alpha/value.txt': 'broken\n' },
      'colony-claude-crash-',
    );
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
        GOAL,
        '--model',
        'anthropic:fake-model',
        '--base-url',
        fake.url,
        '--verify',
        '! grep -rqx broken src',
        '--json',
        '--agent-cli',
        'claude-code',
      ],
      {
        env: { ...NO_API_KEYS, ANTHROPIC_API_KEY: 'sk-ant-real', ANTHROPIC_BASE_URL: '' },
        timeoutMs: 240_000,
      },
    );
    const summary = lastJsonLine(result.stdout);
    const events = summary.runId ? await store.log.read(summary.runId as string) : [];
    const context = `${result.stderr}\n${events.map((e) => `${e.kind} ${JSON.stringify(e.data).slice(0, 600)}`).join('\n')}`;
    expect(killed.length, context).toBe(1);
    expect(summary.status, context).toBe('succeeded');
    const cli = ofKind(events, 'agent.cli').filter((e) => e.agent === 'peer-1');
    expect(
      cli.map((e) => e.data.event),
      context,
    ).toEqual(['started', 'session', 'exited', 'restarted', 'started', 'session', 'exited']);
    const [session, restarted, again] = [cli[1], cli[3], cli[5]].map((e) => e?.data.sessionId);
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    // The restart resumed the session the killed process had.
    expect(restarted).toBe(session);
    expect(again).toBe(session);
    // Killed inside the sandbox: the forwarder reports a death by signal as 128.
    expect(cli[2]?.data.exitCode).toBe(128);
    expect(cli[6]?.data.exitCode).toBe(0);
    // The restarted process resumed the conversation: its requests hold the goal (only the killed
    // process was given it), its claim and then the restart note. The interrupted turn itself is
    // dropped by Claude Code ("Continue from where you left off."): the script asks for Read again.
    const afterRestart = fake
      .requests()
      .filter((q) => (q.request?.tools.length ?? 0) > 0)
      .map((q) => JSON.stringify(q.request?.messages ?? []))
      .filter((m) => m.includes(RESUME_TEXT));
    expect(afterRestart.length, context).toBeGreaterThan(0);
    for (const m of afterRestart) expect(m.includes(GOAL) && m.includes('mcp__colony__claim'), m).toBe(true);
    const tools = ofKind(events, 'model.response')
      .filter((e) => e.agent === 'peer-1')
      .flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
    expect(tools.filter((name) => name === 'mcp__colony__claim')).toHaveLength(1);
    expect(tools.slice(-4)).toEqual(['Read', 'Write', 'mcp__colony__merge_request', 'mcp__colony__release']);
    expect(new Set(ofKind(events, 'claim.granted').map((e) => e.data.scope))).toEqual(
      new Set(['src/alpha/']),
    );
    expect(ofKind(events, 'merge.landed')).toHaveLength(1);
    expect(ofKind(events, 'agent.finished').find((e) => e.agent === 'peer-1')?.data).toMatchObject({
      status: 'done',
      stopReason: 'answered',
    });
  }, 300_000);
});
