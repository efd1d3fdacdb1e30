/**
 * The shared set-up of the external-agent CLI tests: a test store and a fake provider for the file,
 * a user repository of broken modules, the built `colony run` against the fake provider (its
 * summary, events and a failure context), event queries, and the process kills of the crash tests.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { resolveHome, type Store } from '../../src/store/index.js';
import { type FakeProvider, type FakeProviderOptions, startFakeProvider } from '../fake-provider/server.js';
import { type CliResult, colony, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

const NODE_MODULES = join(import.meta.dirname, '..', '..', 'node_modules');
/** The pinned Claude Code devDependency's entry point. */
export const CLAUDE_CODE_CLI = join(NODE_MODULES, '@anthropic-ai', 'claude-code', 'cli.js');
/** The pinned Codex devDependency's launcher. */
export const CODEX_CLI = join(NODE_MODULES, '@openai', 'codex', 'bin', 'codex.js');
/** The mini external agent of the `cmd:` tests. */
export const MINI_AGENT = join(import.meta.dirname, 'mini-agent.mjs');

/** How a run reaches the fake provider in one protocol: the run's model, the real key, the environment. */
export interface FakeAccess {
  model: string;
  key: string;
  env: NodeJS.ProcessEnv;
}

/** Anthropic Messages (Claude Code). */
export const ANTHROPIC: FakeAccess = {
  model: 'anthropic:fake-model',
  key: 'sk-ant-real',
  env: { ...NO_API_KEYS, ANTHROPIC_API_KEY: 'sk-ant-real', ANTHROPIC_BASE_URL: '' },
};
/** OpenAI Responses (Codex). */
export const OPENAI_RESPONSES: FakeAccess = {
  model: 'openai-responses:fake-model',
  key: 'sk-real',
  env: { ...NO_API_KEYS, OPENAI_API_KEY: 'sk-real' },
};
/** OpenAI Chat (Colony's loop and the mini agent). */
export const OPENAI_CHAT: FakeAccess = {
  model: 'openai-chat:fake-model',
  key: 'sk-real-key',
  env: { ...NO_API_KEYS, OPENAI_API_KEY: 'sk-real-key' },
};

/** Opens the test store before the file's tests and closes it after; the getter gives it. */
export function useTestStore(): () => Store {
  let store: Store | undefined;
  beforeAll(async () => {
    store = await openTestStore();
  });
  afterAll(async () => {
    await store?.close();
  });
  return () => {
    if (!store) throw new Error('the test store opens in beforeAll');
    return store;
  };
}

/** Starts a fake provider before the file's tests and closes it after; the getter gives it. */
export function useFakeProvider(options: FakeProviderOptions): () => FakeProvider {
  let fake: FakeProvider | undefined;
  beforeAll(async () => {
    fake = await startFakeProvider(options);
  });
  afterAll(async () => {
    await fake?.close();
  });
  return () => {
    if (!fake) throw new Error('the fake provider starts in beforeAll');
    return fake;
  };
}

/** A user repository of `modules`, each `src/<module>/value.txt` holding `broken`. */
export function brokenModulesRepo(modules: string[], prefix: string, readme = '# m\n') {
  const files: Record<string, string> = { 'README.md': readme };
  for (const m of modules) files[`src/${m}/value.txt`] = 'broken\n';
  return createUserRepo(files, prefix);
}

export interface RunSpec {
  topology: 'peers' | 'orchestrated';
  /** Peers only. */
  agents?: number;
  repo: string;
  goal: string;
  /** The run's model (`--model`, on the fake provider at `url`) and, unless `env` is given, its environment. */
  access: FakeAccess;
  url: string;
  verify: string;
  /** After `--json`: the agent CLI flags and the like. */
  extra?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** The arguments of `colony run … --json` against the fake provider. */
function runArgs(o: RunSpec): string[] {
  return [
    'run',
    '--topology',
    o.topology,
    ...(o.agents === undefined ? [] : ['--agents', String(o.agents)]),
    '--repo',
    o.repo,
    '--goal',
    o.goal,
    '--model',
    o.access.model,
    '--base-url',
    o.url,
    '--verify',
    o.verify,
    '--json',
    ...(o.extra ?? []),
  ];
}

export interface ColonyRun {
  result: CliResult;
  /** The `--json` summary (its last line). */
  summary: Record<string, unknown>;
  runId: string;
  /** The run's events (none when the summary names no run). */
  events: StoredEvent[];
  /** For failure messages: stderr and one line per event. */
  context: string;
}

/** Runs the built `colony run` against the fake provider and reads the run it made. */
export async function runColony(store: Store, spec: RunSpec): Promise<ColonyRun> {
  const result = await colony(runArgs(spec), { env: spec.env ?? spec.access.env, timeoutMs: spec.timeoutMs });
  const summary = lastJsonLine(result.stdout);
  const runId = summary.runId as string;
  const events = runId ? await store.log.read(runId) : [];
  const lines = events.map((e) => `${e.agent} ${e.kind} ${JSON.stringify(e.data).slice(0, 600)}`);
  return { result, summary, runId, events, context: `${result.stderr}\n${lines.join('\n')}` };
}

export type AgentCli = 'claude-code' | 'codex';
/** The protocol each agent CLI speaks to the fake provider. */
const CLI_ACCESS: Record<AgentCli, FakeAccess> = { 'claude-code': ANTHROPIC, codex: OPENAI_RESPONSES };

/**
 * One peer run by `cli` (`--topology peers --agents 1 --agent-cli <cli>`) on `repo`, done when no
 * file under src holds `broken` (240 s at most).
 */
export function runCliPeer(
  store: Store,
  fake: FakeProvider,
  o: { cli: AgentCli; repo: string; goal?: string; extra?: string[] },
): Promise<ColonyRun> {
  return runColony(store, {
    topology: 'peers',
    agents: 1,
    repo: o.repo,
    goal: o.goal ?? 'fix every module',
    access: CLI_ACCESS[o.cli],
    url: fake.url,
    verify: '! grep -rqx broken src',
    extra: ['--agent-cli', o.cli, ...(o.extra ?? [])],
    timeoutMs: 240_000,
  });
}

/** A file as the run's result branch (colony/<run>) holds it. */
export function onResultBranch(repo: string, runId: string, path: string): string {
  return execFileSync('git', ['-C', repo, 'show', `colony/${runId}:${path}`], { encoding: 'utf8' });
}

/** The events of one kind. */
export function ofKind<K extends StoredEvent['kind']>(events: StoredEvent[], kind: K): StoredEvent<K>[] {
  return events.filter((e): e is StoredEvent<K> => e.kind === kind);
}

/** The events of one kind of one agent. */
export function ofAgent<K extends StoredEvent['kind']>(
  events: StoredEvent[],
  kind: K,
  agent: string,
): StoredEvent<K>[] {
  return ofKind(events, kind).filter((e) => e.agent === agent);
}

/** The names of the tools an agent's model called, in order. */
/**
 * A CLI's process life as its `agent.cli` events tell it, one `session` report per process run: a
 * CLI reports its session at every turn, and a direct message that reaches it after its answer (its
 * merge request's "landed") can start one more turn before it exits — when, depends on timing.
 */
export function cliLifecycle(events: StoredEvent<'agent.cli'>[]): StoredEvent<'agent.cli'>[] {
  return events.filter((e, i) => !(e.data.event === 'session' && events[i - 1]?.data.event === 'session'));
}

export function toolCallsOf(events: StoredEvent[], agent: string): string[] {
  return ofAgent(events, 'model.response', agent).flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
}

/** No agent token (colony_at_…) reached the log in the clear. */
export function expectNoTokenInLog(events: StoredEvent[]): void {
  expect(JSON.stringify(events)).not.toMatch(/colony_at_[A-Za-z0-9_-]{20,}/);
}

/** Every file under `dir` (recursively; none when it does not exist). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** The files under `path` in a peer's CLI folder, in every run of the test home (`.codex/sessions`). */
export function peerCliFiles(peer: string, path: string): string[] {
  const runs = join(resolveHome(), 'runs');
  return (existsSync(runs) ? readdirSync(runs) : []).flatMap((run) =>
    filesUnder(join(runs, run, 'agent-cli', peer, path)),
  );
}

/** The processes whose command line `matches` (those gone or not ours to read left out). */
export function processesWhere(matches: (argv: string[]) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (matches(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0'))) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/**
 * `inner`, but the first time the agent asks for the turn after its claim, the processes `victims()`
 * names are killed (SIGKILL) once `ready()` (waited for up to 20 s): the crash of the restart tests.
 * `killed()` gives the pids killed.
 */
export function killAfterClaim(
  inner: ScriptedPolicy,
  ready: () => boolean,
  victims: () => number[],
): { policy: ScriptedPolicy; killed: () => number[] } {
  return killAfterTool('mcp__colony__claim', inner, ready, victims);
}

/** killAfterClaim after the call of another tool (`tool`: as the fake provider names it). */
export function killAfterTool(
  tool: string,
  inner: ScriptedPolicy,
  ready: () => boolean,
  victims: () => number[],
): { policy: ScriptedPolicy; killed: () => number[] } {
  let killed: number[] = [];
  const policy: ScriptedPolicy = async (request, index) => {
    const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
    if (killed.length === 0 && calls.at(-1)?.name === tool) {
      for (let i = 0; i < 200 && !ready(); i++) await new Promise((r) => setTimeout(r, 100));
      killed = victims();
      for (const pid of killed) process.kill(pid, 'SIGKILL');
    }
    return inner(request, index);
  };
  return { policy, killed: () => killed };
}
