/**
 * The real Claude Code (the pinned devDependency) as an orchestrated subagent: `colony run
 * --topology orchestrated --agent-cli claude-code`, sandbox on. The lead is Colony's own loop; its
 * coder subagent `fixer` is Claude Code, given two tasks in turn: the second resumes its session
 * (`--resume`, the task as the next user message). Its turns come from the fake provider through the
 * metering proxy (orchestrated-policy.ts): its own Read and Write, then merge_request over MCP.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC,
  brokenModulesRepo,
  CLAUDE_CODE_CLI,
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
const fake = useFakeProvider({
  policy: orchestratedCliPolicy(
    MODULES,
    // Claude Code writes a file only after reading it.
    (file, content) => [
      { name: 'Read', arguments: { file_path: `./${file}` } },
      { name: 'Write', arguments: { file_path: `./${file}`, content } },
    ],
    'mcp__colony__merge_request',
  ),
  requireKey: ANTHROPIC.key,
});

describe.skipIf(!existsSync(CLAUDE_CODE_CLI))('--topology orchestrated --agent-cli claude-code', () => {
  it('runs the subagent as Claude Code; its second task resumes its session', async () => {
    const r = brokenModulesRepo(MODULES, 'colony-claude-sub-');
    const { summary, events, context } = await runColony(store(), {
      topology: 'orchestrated',
      repo: r.dir,
      goal: 'fix every module',
      access: ANTHROPIC,
      url: fake().url,
      verify: 'grep -qx "fixed alpha" src/alpha/value.txt',
      extra: ['--agent-cli', 'claude-code'],
      timeoutMs: 240_000,
    });
    expect(summary.status, context).toBe('succeeded');
    const cli = ofAgent(events, 'agent.cli', SUBAGENT);
    expect(
      cli.map((e) => e.data.event),
      context,
    ).toEqual(['started', 'session', 'exited', 'started', 'session', 'exited']);
    // The second task went on in the first task's session.
    expect(cli[4]?.data.sessionId).toBe(cli[1]?.data.sessionId);
    const second = fake()
      .requests()
      .map((q) => JSON.stringify(q.request?.messages ?? []))
      .filter((m) => m.includes('Fix module beta'));
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((m) => m.includes('Fix module alpha'))).toBe(true);
    const finished = ofKind(events, 'task.finished');
    expect(finished.map((e) => [e.data.status, e.data.result])).toEqual([
      ['done', 'fixed alpha'],
      ['done', 'fixed beta'],
    ]);
    expect(ofKind(events, 'merge.landed').map((e) => e.data.files)).toEqual([
      ['src/alpha/value.txt'],
      ['src/beta/value.txt'],
    ]);
    const tools = toolCallsOf(events, SUBAGENT);
    const perTask = ['Read', 'Write', 'mcp__colony__merge_request'];
    expect(tools).toEqual([...perTask, ...perTask]);
    expect(finished.map((e) => e.data.task)).toEqual(['task-1', 'task-2']);
    expect(ofKind(events, 'task.started').map((e) => e.data.prompt)).toEqual(MODULES.map(taskPrompt));
  }, 300_000);
});
