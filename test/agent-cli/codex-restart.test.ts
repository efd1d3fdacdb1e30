/**
 * Crash → restart with resume, with the real Codex (the pinned devDependency) as a peer: the fake
 * provider's script kills its process with SIGKILL while it waits for the turn after its claim (once
 * its session file holds the claim's result). Colony restarts it with `codex exec resume <thread>`;
 * the resumed thread still holds the claim and the peer finishes.
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
import { codexPolicy } from './codex-policy.js';

const CODEX = join(import.meta.dirname, '..', '..', 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
/** This run's goal: in Codex's command line. */
const GOAL = `fix every module (crash test ${randomUUID()})`;

/** Codex's native processes of this test's run (not its node launcher, not the sandbox's). */
function codexOfRun(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (/(^|\/)codex$/.test(argv[0] ?? '') && argv.includes(GOAL)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** Every file under `dir` (recursively). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** Whether Codex's session file of this run holds a tool call's output yet. */
function sessionHasToolOutput(): boolean {
  const runs = join(resolveHome(), 'runs');
  for (const run of existsSync(runs) ? readdirSync(runs) : []) {
    for (const file of filesUnder(join(runs, run, 'agent-cli', 'peer-1', '.codex', 'sessions'))) {
      const text = readFileSync(file, 'utf8');
      if (text.includes(GOAL) && text.includes('function_call_output')) return true;
    }
  }
  return false;
}

const inner = codexPolicy((peer) =>
  peer === 1
    ? { scope: 'src/alpha/', command: "printf 'fixed alpha\\n' > src/alpha/value.txt", note: 'fix alpha' }
    : undefined,
);
let killed: number[] = [];
const crashingPolicy: ScriptedPolicy = async (request, index) => {
  const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
  if (killed.length === 0 && calls.at(-1)?.name === 'mcp__colony__claim') {
    for (let i = 0; i < 200 && !sessionHasToolOutput(); i++) await new Promise((r) => setTimeout(r, 100));
    killed = codexOfRun();
    for (const pid of killed) process.kill(pid, 'SIGKILL');
  }
  return inner(request, index);
};

let store: Store;
let fake: FakeProvider;
beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy: crashingPolicy, requireKey: 'sk-real' });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

const ofKind = <K extends StoredEvent['kind']>(events: StoredEvent[], kind: K) =>
  events.filter((e): e is StoredEvent<K> => e.kind === kind);

describe.skipIf(!existsSync(CODEX))('--agent-cli codex: crash and resume', () => {
  it('restarts Codex killed mid-run with exec resume of its thread', async () => {
    const r = createUserRepo(
      { 'README.md': '# m\n', 'src/alpha/value.txt': 'broken\n' },
      'colony-codex-crash-',
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
        'openai-responses:fake-model',
        '--base-url',
        fake.url,
        '--verify',
        '! grep -rqx broken src',
        '--json',
        '--agent-cli',
        'codex',
      ],
      { env: { ...NO_API_KEYS, OPENAI_API_KEY: 'sk-real' }, timeoutMs: 240_000 },
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
    const [thread, restarted, again] = [cli[1], cli[3], cli[5]].map((e) => e?.data.sessionId);
    expect(thread).toMatch(/^[0-9a-f-]{36}$/);
    expect(restarted).toBe(thread);
    expect(again).toBe(thread);
    expect(cli[6]?.data.exitCode).toBe(0);
    // The resumed thread holds the goal, the claim and its result, then the restart note.
    const afterRestart = fake
      .requests()
      .map((q) => JSON.stringify(q.request?.messages ?? []))
      .filter((m) => m.includes(RESUME_TEXT));
    expect(afterRestart.length, context).toBeGreaterThan(0);
    for (const m of afterRestart) expect(m.includes(GOAL) && m.includes('mcp__colony__claim'), m).toBe(true);
    const tools = ofKind(events, 'model.response')
      .filter((e) => e.agent === 'peer-1')
      .flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
    expect(tools.filter((name) => name === 'mcp__colony__claim')).toHaveLength(1);
    expect(tools.slice(-3)).toEqual(['exec_command', 'mcp__colony__merge_request', 'mcp__colony__release']);
    expect(ofKind(events, 'merge.landed')).toHaveLength(1);
  }, 300_000);
});
