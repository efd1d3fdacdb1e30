/**
 * Orchestrated crash and resume: `colony run --topology orchestrated` is SIGKILLed while subagents
 * are mid-task (some tasks queued behind the concurrency limit), then `colony resume` finishes it.
 * The kill point is fixed by the fake provider, not by timing: each running subagent's last request
 * of its first task is held until the test has killed the process.
 * Subagents start without waiting for task.assigned / agent.started to commit and hand their slot over
 * before their last events commit; the log must still replay into exactly one task per assignment,
 * one agent.started per subagent, one task.started per task, every task done, and no completed model
 * call served twice (only the calls in flight at the kill may repeat).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { orchestratedPolicy } from '../../src/demo/orchestrated-policy.js';
import type { Store } from '../../src/store/index.js';
import { type Colony, colony, ensureBuilt, repeatedServes, startColony } from '../durability/harness.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
let fake: FakeProvider;
/** Concurrency of the killed run: this many subagents run their first task, the others queue. */
const CONCURRENCY = 2;
/**
 * While `holding`, a subagent request carrying 2 tool results (the last of a 3-step first task) is
 * held until `release`; `held` names the subagents whose request is held.
 */
const hold = {
  holding: true,
  held: [] as string[],
  allHeld: promiseWithResolvers(),
  release: promiseWithResolvers(),
};

function promiseWithResolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

beforeAll(async () => {
  await ensureBuilt();
  store = await openTestStore();
  const policy = orchestratedPolicy();
  fake = await startFakeProvider({
    latencyMs: 150,
    record: false,
    policy: async (request, index) => {
      const agent = /You are subagent "([^"]+)"/.exec(request.system)?.[1];
      const results = request.messages.filter((m) => m.role === 'tool').length;
      if (hold.holding && agent !== undefined && results === 2) {
        hold.held.push(agent);
        if (hold.held.length === CONCURRENCY) hold.allHeld.resolve();
        await hold.release.promise;
      }
      return policy(request, index);
    },
  });
});
afterAll(async () => {
  hold.release.resolve();
  await fake.close();
  await store.close();
});

interface EventLine {
  agent?: string;
  kind: string;
  data?: { step?: number };
}

/**
 * Resolves true once the run's `--json` lines (committed events) satisfy `done`, false if the
 * process exits first.
 */
function untilLogged(c: Colony, done: (events: EventLine[]) => boolean): Promise<boolean> {
  const events: EventLine[] = [];
  const seen = new Promise<true>((resolve) => {
    const add = (line: string): void => {
      if (!line.startsWith('{')) return;
      try {
        const e = JSON.parse(line) as EventLine;
        if (typeof e.kind === 'string') events.push(e);
      } catch {
        return;
      }
      if (done(events)) resolve(true);
    };
    for (const line of c.lines) add(line);
    c.onLine(add);
  });
  return Promise.race([c.exited.then(() => false), seen]);
}

describe('orchestrated resume', () => {
  it('a run killed mid-fan-out resumes to one finished task per assignment, repeating no completed call', async () => {
    const repo = createUserRepo({ 'README.md': '# repo\n', 'src/a.txt': 'a\n' }, 'colony-orch-resume-');
    const c = startColony([
      'run',
      '--topology',
      'orchestrated',
      '--repo',
      repo.dir,
      '--goal',
      'Inspect the repository. plan: a:3,b:3,c:3,d:3 / a:2,b:2',
      '--model',
      'openai-chat:fake',
      '--base-url',
      fake.url,
      '--concurrency',
      String(CONCURRENCY),
      '--json',
    ]);
    // Kill point: the two running subagents (the concurrency limit) have each sent the last request
    // of their first task, which the fake holds; the other two tasks are queued behind them. The kill
    // waits until the log has committed the four assignments and each held subagent's events up to
    // its step-2 tool result (appended before its held request, committed on their own time).
    try {
      const held = await Promise.race([c.exited.then(() => false), hold.allHeld.promise.then(() => true)]);
      expect(held, `the run ended before its requests were held: ${c.stderr()}`).toBe(true);
      const logged = await untilLogged(
        c,
        (events) =>
          events.filter((e) => e.kind === 'task.assigned').length === 4 &&
          hold.held.every((agent) =>
            events.some((e) => e.agent === agent && e.kind === 'tool.finished' && e.data?.step === 2),
          ),
      );
      expect(logged, `the run ended before the kill: ${c.stderr()}\n${c.lines.slice(-5).join('\n')}`).toBe(
        true,
      );
      c.child.kill('SIGKILL');
      expect((await c.exited).signal).toBe('SIGKILL');
    } finally {
      // The killed process's held requests are answered into closed sockets; the resume is not held.
      hold.holding = false;
      hold.release.resolve();
    }
    const runId = await c.runId;
    if (!runId) throw new Error('the run printed no run id');

    // The kill interrupted the fan-out: the first wave's tasks were assigned, none had finished.
    expect(hold.held).toHaveLength(CONCURRENCY);
    const before = await store.log.read(runId, { kinds: ['task.assigned', 'task.finished'] });
    expect(before.filter((e) => e.kind === 'task.assigned').length).toBe(4);
    expect(before.filter((e) => e.kind === 'task.finished').length).toBe(0);

    const resumed = await colony(['resume', runId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = await store.log.read(runId);
    const of = <K extends StoredEvent['kind']>(kind: K) =>
      events.filter((e) => e.kind === kind) as StoredEvent<K>[];
    expect(of('run.finished').map((e) => e.data.status)).toEqual(['succeeded']);

    const assigned = of('task.assigned');
    expect(assigned.map((e) => `${e.data.leadStep}/${e.data.callId}`).length).toBe(6);
    expect(new Set(assigned.map((e) => `${e.data.leadStep}/${e.data.callId}`)).size).toBe(6);
    const finished = of('task.finished');
    expect(finished.map((e) => e.data.task).sort()).toEqual(assigned.map((e) => e.data.task).sort());
    expect(finished.every((e) => e.data.status === 'done')).toBe(true);
    expect(
      of('task.started')
        .map((e) => e.data.task)
        .sort(),
    ).toEqual(assigned.map((e) => e.data.task).sort());
    const starts = of('agent.started').map((e) => e.agent);
    expect(starts.sort()).toEqual(['a', 'b', 'c', 'd', 'lead']);
    // Steps per task as planned (the kill did not add or lose a step): 3 each, then 2 each.
    expect(finished.map((e) => `${e.data.agent}:${e.data.steps}`).sort()).toEqual(
      ['a:2', 'a:3', 'b:2', 'b:3', 'c:3', 'd:3'].sort(),
    );
    // At most the requests in flight at the kill (two subagents) are served again.
    expect(repeatedServes(fake.stats())).toBeLessThanOrEqual(2);
  });
});
