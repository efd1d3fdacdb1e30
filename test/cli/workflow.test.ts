/**
 * `colony workflow FILE` as a user runs it: the built CLI, a fake provider over real HTTP, real git
 * and Postgres. A workflow killed with SIGKILL mid-run and finished with `colony resume` re-runs no
 * completed step: every step finished before the kill has its model requests served exactly once.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/providers/scripted.js';
import {
  type Colony,
  cliEnv,
  colony,
  ensureBuilt,
  killWhen,
  makeRepo,
  parseEventLine,
  startColony,
} from '../durability/harness.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';

const PROGRAM = join(import.meta.dirname, '..', 'workflow', 'fixtures', 'two-stages.ts');
/** Model requests per task (first user message). */
const requestsByTask = new Map<string, number>();
let fake: FakeProvider;

/** Each agent lists the repository once, then answers with a word derived from its task. */
const policy: ScriptedPolicy = (request) => {
  const task = request.messages.find((m) => m.role === 'user')?.content ?? '';
  requestsByTask.set(task, (requestsByTask.get(task) ?? 0) + 1);
  const looked = request.messages.some((m) => m.role === 'tool');
  if (!looked) return { text: 'Looking around.', toolCalls: [{ name: 'ls', arguments: { path: '.' } }] };
  const word = task.replace(/^\[(look|judge)\] /, '');
  return { text: task.startsWith('[look]') ? `saw-${word}` : `ok-${word}` };
};

beforeAll(async () => {
  await ensureBuilt();
  fake = await startFakeProvider({ policy, latencyMs: 250 });
});

afterAll(async () => {
  await fake?.close();
});

function workflowArgs(repo: string): string[] {
  return [
    'workflow',
    PROGRAM,
    '--repo',
    repo,
    '--model',
    'openai-chat:fake',
    '--base-url',
    fake.url,
    '--json',
  ];
}

const EXPECTED = {
  seen: ['saw-alpha', 'saw-beta', 'saw-gamma'],
  judged: ['ok-saw-alpha', 'ok-saw-beta', 'ok-saw-gamma'],
};

/** The steps whose `step.finished` the process printed before it died. */
function finishedSteps(c: Colony): string[] {
  const steps: string[] = [];
  for (const line of c.lines) {
    if (!line.startsWith('{')) continue;
    try {
      const event = JSON.parse(line) as { kind?: string; data?: { step?: string } };
      if (event.kind === 'step.finished' && event.data?.step) steps.push(event.data.step);
    } catch {
      // a line cut short by the kill
    }
  }
  return steps;
}

describe('colony workflow', () => {
  it('resumes after kill -9 without re-running completed steps', async () => {
    const repo = await makeRepo({ 'README.md': '# r\n', 'src/x.js': 'export const x = 1;\n' });
    const first = startColony(workflowArgs(repo.dir), cliEnv());
    // Kill while the second stage runs: the first stage's three steps are complete by then.
    const killed = await killWhen(
      first,
      (e) => e.kind === 'stage.started' && first.lines.some(isJudgeStage),
      50,
    );
    expect(killed, first.stderr()).toBe(true);
    const runId = await first.runId;
    expect(runId).toBeTruthy();
    const done = finishedSteps(first);
    expect(done).toEqual(
      expect.arrayContaining(['look/map-0/explore', 'look/map-1/explore', 'look/map-2/explore']),
    );
    const before = new Map(requestsByTask);

    const resumed = await colony(['resume', runId as string, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout.trim().split('\n').at(-1) ?? '{}') as { status?: string };
    expect(summary.status).toBe('succeeded');
    const finished = resumed.stdout
      .split('\n')
      .map((line) => (line.startsWith('{') ? (JSON.parse(line) as { kind?: string; data?: unknown }) : null))
      .find((e) => e?.kind === 'workflow.finished');
    expect(finished?.data).toEqual({ ok: true, value: EXPECTED });

    const chain = await colony(['verify', runId as string]);
    expect(chain.code, chain.stdout + chain.stderr).toBe(0);

    // Completed steps were replayed from the log: no request for their tasks after the kill.
    for (const item of ['alpha', 'beta', 'gamma']) {
      expect(requestsByTask.get(`[look] ${item}`)).toBe(2);
      expect(requestsByTask.get(`[look] ${item}`)).toBe(before.get(`[look] ${item}`));
    }
    // Steps in flight at the kill continued from their logged turns: at most the call in flight is repeated.
    for (const item of ['alpha', 'beta', 'gamma']) {
      expect(requestsByTask.get(`[judge] saw-${item}`)).toBeGreaterThanOrEqual(2);
      expect(requestsByTask.get(`[judge] saw-${item}`)).toBeLessThanOrEqual(3);
    }
  });

  it('fails a resumed program that asks a started step something else (the determinism rule)', async () => {
    const repo = await makeRepo({ 'README.md': '# r\n' });
    const program = join(import.meta.dirname, '..', 'workflow', 'fixtures', 'nondeterministic.ts');
    const first = startColony(
      [
        'workflow',
        program,
        '--repo',
        repo.dir,
        '--model',
        'openai-chat:fake',
        '--base-url',
        fake.url,
        '--json',
      ],
      cliEnv(),
    );
    expect(await killWhen(first, (e) => e.kind === 'step.started', 50), first.stderr()).toBe(true);
    const runId = await first.runId;
    const resumed = await colony(['resume', runId as string, '--json']);
    expect(resumed.code).toBe(1);
    const summary = JSON.parse(resumed.stdout.trim().split('\n').at(-1) ?? '{}') as {
      status?: string;
      reason?: string;
    };
    expect(summary.status).toBe('failed');
    expect(summary.reason).toContain('the program is not deterministic');
  });

  it('colony demo review runs the review example and prints CriticalSteps, parallelism and cost', async () => {
    const demo = await colony(['demo', 'review']);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('8 risks reported, 7 after de-duplication');
    expect(demo.stdout).toMatch(/1\. \[critical\] src\/db\/query\.js:4 .*found by src\/api and src\/db/);
    expect(demo.stdout).toMatch(
      /CriticalSteps 6 \(stages: explore 5, merge 1\), total steps 15, parallelism 2\.50, cost \$/,
    );
  });

  it('rejects bad usage with exit code 2', async () => {
    const missing = await colony(['workflow']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing file');
    const badArg = await colony(['workflow', PROGRAM, '--arg', 'novalue']);
    expect(badArg.code).toBe(2);
    expect(badArg.stderr).toContain('KEY=VALUE');
    const notFound = await colony(['workflow', '/nonexistent/flow.ts']);
    expect(notFound.code).toBe(2);
    expect(notFound.stderr).toContain('cannot read workflow file');
    const badSandbox = await colony(['workflow', PROGRAM, '--sandbox', 'maybe']);
    expect(badSandbox.code).toBe(2);
    expect(badSandbox.stderr).toContain('workflow: --sandbox must be on, auto, off, got "maybe"');
    const badPass = await colony(['workflow', PROGRAM, '--pass-env', 'NOT A NAME']);
    expect(badPass.code).toBe(2);
    expect(badPass.stderr).toContain('--pass-env needs a variable name');
  });
});

function isJudgeStage(line: string): boolean {
  if (!line.startsWith('{')) return false;
  const event = parseEventLine(line);
  return event?.kind === 'stage.started' && line.includes('"stage":"judge"');
}
