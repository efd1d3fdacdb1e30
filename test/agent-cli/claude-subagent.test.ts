/**
 * The real Claude Code (the pinned devDependency) as an orchestrated subagent: `colony run
 * --topology orchestrated --agent-cli claude-code`, sandbox on. The lead is Colony's own loop; its
 * coder subagent `fixer` is Claude Code, given two tasks in turn: the second resumes its session
 * (`--resume`, the task as the next user message). Its turns come from the fake provider through the
 * metering proxy (orchestrated-policy.ts): its own Read and Write, then merge_request over MCP.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { orchestratedCliPolicy, SUBAGENT, taskPrompt } from './orchestrated-policy.js';

const CLAUDE = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@anthropic-ai',
  'claude-code',
  'cli.js',
);
const MODULES = ['alpha', 'beta'];

let store: Store;
let fake: FakeProvider;
beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({
    policy: orchestratedCliPolicy(
      MODULES,
      // Claude Code writes a file only after reading it.
      (file, content) => [
        { name: 'Read', arguments: { file_path: `./${file}` } },
        { name: 'Write', arguments: { file_path: `./${file}`, content } },
      ],
      'mcp__colony__merge_request',
    ),
    requireKey: 'sk-ant-real',
  });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

const ofKind = <K extends StoredEvent['kind']>(events: StoredEvent[], kind: K) =>
  events.filter((e): e is StoredEvent<K> => e.kind === kind);

describe.skipIf(!existsSync(CLAUDE))('--topology orchestrated --agent-cli claude-code', () => {
  it('runs the subagent as Claude Code; its second task resumes its session', async () => {
    const files: Record<string, string> = { 'README.md': '# m\n' };
    for (const m of MODULES) files[`src/${m}/value.txt`] = 'broken\n';
    const r = createUserRepo(files, 'colony-claude-sub-');
    const result = await colony(
      [
        'run',
        '--topology',
        'orchestrated',
        '--repo',
        r.dir,
        '--goal',
        'fix every module',
        '--model',
        'anthropic:fake-model',
        '--base-url',
        fake.url,
        '--verify',
        'grep -qx "fixed alpha" src/alpha/value.txt',
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
    const context = `${result.stderr}\n${events.map((e) => `${e.agent} ${e.kind} ${JSON.stringify(e.data).slice(0, 500)}`).join('\n')}`;
    expect(summary.status, context).toBe('succeeded');
    const cli = ofKind(events, 'agent.cli').filter((e) => e.agent === SUBAGENT);
    expect(
      cli.map((e) => e.data.event),
      context,
    ).toEqual(['started', 'session', 'exited', 'started', 'session', 'exited']);
    // The second task went on in the first task's session.
    expect(cli[4]?.data.sessionId).toBe(cli[1]?.data.sessionId);
    const second = fake
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
    const tools = ofKind(events, 'model.response')
      .filter((e) => e.agent === SUBAGENT)
      .flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
    const perTask = ['Read', 'Write', 'mcp__colony__merge_request'];
    expect(tools).toEqual([...perTask, ...perTask]);
    expect(finished.map((e) => e.data.task)).toEqual(['task-1', 'task-2']);
    expect(ofKind(events, 'task.started').map((e) => e.data.prompt)).toEqual(MODULES.map(taskPrompt));
  }, 300_000);
});
