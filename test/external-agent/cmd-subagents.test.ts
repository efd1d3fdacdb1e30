/**
 * Orchestrated subagents driven by an external agent (`colony run --topology orchestrated
 * --agent-cli 'cmd:…'`): the built CLI against the fake provider, sandbox on. The lead is Colony's
 * own loop; its coder subagent is the mini agent (mini-agent.mjs: merge_request over MCP, its own
 * write, model turns through the metering proxy), given two tasks in turn. Also: a mini agent that
 * crashes (SIGKILL) once per task is restarted (`agent.cli` restarted, COLONY_RESTART) and finishes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../fake-provider/server.js';
import { createUserRepo } from '../helpers/user-repo.js';
import {
  brokenModulesRepo,
  MINI_AGENT,
  OPENAI_CHAT,
  ofAgent,
  ofKind,
  runColony,
  toolCallsOf,
  useFakeProvider,
  useTestStore,
} from './harness.js';
import { orchestratedCliPolicy, SUBAGENT, taskPrompt } from './orchestrated-policy.js';

const MODULES = ['alpha', 'beta'];

const store = useTestStore();
const fake = useFakeProvider({ policy: orchestratedCliPolicy(MODULES), requireKey: OPENAI_CHAT.key });
const profileFake = useFakeProvider({
  policy: orchestratedCliPolicy(MODULES, undefined, undefined, 'external'),
  requireKey: OPENAI_CHAT.key,
});

async function runOrchestrated(
  command: string | null,
  extra: string[] = [],
  provider: FakeProvider = fake(),
) {
  const repo = brokenModulesRepo(MODULES, 'colony-cli-subagents-', '# modules\n');
  const { summary, events, context } = await runColony(store(), {
    topology: 'orchestrated',
    repo: repo.dir,
    goal: 'fix every module',
    access: OPENAI_CHAT,
    url: provider.url,
    // Passes after the first task already: each merge lands (the queue checks with it too).
    verify: 'grep -qx "fixed alpha" src/alpha/value.txt',
    extra: [...(command ? ['--agent-cli', `cmd:${command}`] : []), ...extra],
    timeoutMs: 180_000,
  });
  expect(summary.status, context).toBe('succeeded');
  return { events, context, repo };
}

const SUBAGENT_TOOLS = [
  'merge_request',
  'sync',
  'context_post',
  'context_read',
  'context_unfold',
  'claim',
  'release',
];

describe("--topology orchestrated --agent-cli 'cmd:…'", () => {
  it("drives the lead's subagent with the CLI: its tasks, merges and results reach the lead", async () => {
    const { events, context } = await runOrchestrated(`node ${MINI_AGENT}`);
    // The lead stays Colony's loop; the subagent is the mini agent with Colony's non-coder tools.
    const started = ofKind(events, 'agent.started');
    expect(started.find((e) => e.agent === 'lead')?.data.tools).toContain('assign_task');
    const sub = started.find((e) => e.agent === SUBAGENT);
    expect(sub?.data).toMatchObject({ profile: 'coder', model: 'openai-chat:fake-model' });
    // Its Colony tools: the merge tools and, as every subagent's, the team's shared context and claims.
    expect(sub?.data.tools).toEqual(SUBAGENT_TOOLS);
    expect(ofAgent(events, 'agent.cli', 'lead')).toEqual([]);
    // One process per task (cmd: has no session to resume), each given its task as the goal.
    const cli = ofAgent(events, 'agent.cli', SUBAGENT);
    expect(
      cli.map((e) => e.data.event),
      context,
    ).toEqual(['started', 'exited', 'started', 'exited']);
    expect(cli.filter((e) => e.data.event === 'exited').map((e) => e.data.exitCode)).toEqual([0, 0]);
    const tasks = ofAgent(events, 'task.started', SUBAGENT);
    expect(tasks.map((e) => e.data.prompt)).toEqual(MODULES.map(taskPrompt));
    // Its results reach the lead as a built-in subagent's do (task.finished, the assign_task result).
    const finished = ofKind(events, 'task.finished');
    expect(finished.map((e) => [e.data.status, e.data.steps])).toEqual([
      ['done', 3],
      ['done', 3],
    ]);
    expect(finished.map((e) => e.data.result.split('\n')[0])).toEqual(['fixed alpha', 'fixed beta']);
    expect(
      ofKind(events, 'merge.landed').map((e) => e.data.files),
      context,
    ).toEqual([['src/alpha/value.txt'], ['src/beta/value.txt']]);
    const agentFinished = ofAgent(events, 'agent.finished', SUBAGENT);
    expect(agentFinished.map((e) => e.data.stopReason)).toEqual(['answered', 'answered']);
    // Its model calls went through the proxy (the subagent's model.responses, tool names as called).
    const responses = ofAgent(events, 'model.response', SUBAGENT);
    expect(responses.flatMap((e) => e.data.turn.toolCalls.map((c) => c.name))).toEqual([
      'write',
      'merge_request',
      'write',
      'merge_request',
    ]);
    expect(JSON.stringify(events)).not.toContain('colony_at_');
  }, 240_000);

  it('drives the subagents of a config profile naming a CLI', async () => {
    const config = join(createUserRepo({ 'x.txt': 'x\n' }, 'colony-cli-config-').dir, 'colony-config.json');
    writeFileSync(
      config,
      JSON.stringify({ profiles: { external: { base: 'coder', cli: `cmd:node ${MINI_AGENT}` } } }),
    );
    const { events, context } = await runOrchestrated(null, ['--config', config], profileFake());
    const sub = ofKind(events, 'agent.started').find((e) => e.agent === SUBAGENT);
    expect(sub?.data).toMatchObject({ profile: 'external', tools: SUBAGENT_TOOLS });
    const cli = ofAgent(events, 'agent.cli', SUBAGENT);
    expect(
      cli.map((e) => e.data.event),
      context,
    ).toEqual(['started', 'exited', 'started', 'exited']);
    expect(ofKind(events, 'task.finished').map((e) => e.data.status)).toEqual(['done', 'done']);
    expect(ofKind(events, 'merge.landed')).toHaveLength(2);
  }, 240_000);

  it('restarts a subagent CLI that crashed before its result', async () => {
    const { events, context } = await runOrchestrated(`MINI_AGENT_CRASH_AFTER=write node ${MINI_AGENT}`);
    const cli = ofAgent(events, 'agent.cli', SUBAGENT);
    const perTask = ['started', 'exited', 'restarted', 'started', 'exited'];
    expect(
      cli.map((e) => e.data.event),
      context,
    ).toEqual([...perTask, ...perTask]);
    // Killed by SIGKILL under `sh -c`: exit 137; the restarted one (COLONY_RESTART=1) exits 0.
    expect(cli.filter((e) => e.data.event === 'exited').map((e) => e.data.exitCode)).toEqual([
      137, 0, 137, 0,
    ]);
    expect(cli.filter((e) => e.data.event === 'restarted').map((e) => e.data.restart)).toEqual([1, 1]);
    expect(ofKind(events, 'task.finished').map((e) => e.data.status)).toEqual(['done', 'done']);
    expect(ofKind(events, 'merge.landed')).toHaveLength(2);
    // The restarted process started over (cmd: has no session): it wrote again, then merged.
    const tools = toolCallsOf(events, SUBAGENT);
    expect(tools).toEqual(['write', 'write', 'merge_request', 'write', 'write', 'merge_request']);
  }, 240_000);
});
