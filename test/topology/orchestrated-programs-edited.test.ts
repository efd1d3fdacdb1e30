/**
 * A lead's programs, durable per step across a SIGKILL and an edit (issue 32). The lead's first
 * run_workflow program maps an explore step over alpha, beta, gamma (one at a time), then a coder
 * writes LETTERS.md and lands it through the integration queue. The process is SIGKILLed while alpha
 * and beta are finished and gamma is in flight (the fake provider holds gamma's request; the kill
 * point is the committed log, not timing). `colony resume` re-runs the same call: alpha and beta come
 * back from the log, gamma and the coder run. The lead then sends an edited program (gamma → delta,
 * same coder step): alpha, beta and the coder's landed step are re-used from the first program, only
 * delta runs. Every count is read from the fake provider's request log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { ModelRequest } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import { colony, ensureBuilt, git } from '../durability/harness.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { deferred, killPlannedRunMidProgram } from './program-kill.js';

let store: Store;
let fake: FakeProvider;
const hold = { holding: true, arrived: deferred(), release: deferred() };

const CODER_TASK = 'Write LETTERS.md naming the Greek letters.';

function program(letters: string[]): string {
  return [
    `const items = ${JSON.stringify(letters)};`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the program's own template literal
    "const results = await w.map(items, (item) => w.agent('explore').run(`Describe ${item}`), { concurrency: 1 });",
    `const written = await w.agent('coder').run(${JSON.stringify(CODER_TASK)});`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the program's own template literal
    'return { letters: results.map((r) => (r.ok ? r.value : `failed: ${r.error.message}`)), written: written.ok };',
  ].join('\n');
}
const FIRST = program(['alpha', 'beta', 'gamma']);
const EDITED = program(['alpha', 'beta', 'delta']);

function leadTurn(request: ModelRequest): ScriptedTurn {
  const results = request.messages.filter((m) => m.role === 'tool').length;
  if (results === 0) return { toolCalls: [{ name: 'run_workflow', arguments: { program: FIRST } }] };
  if (results === 1) return { toolCalls: [{ name: 'run_workflow', arguments: { program: EDITED } }] };
  return { text: 'done' };
}

function coderTurn(request: ModelRequest): ScriptedTurn {
  if (!request.messages.some((m) => m.role === 'tool'))
    return {
      toolCalls: [{ name: 'write', arguments: { path: 'LETTERS.md', content: 'alpha beta gamma\n' } }],
    };
  return { text: 'Wrote LETTERS.md' };
}

/** Model requests per task (the first user message), from the fake provider's request log. */
function requestsPerTask(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of fake.requests()) {
    const task = r.request?.messages[0]?.content ?? '';
    const key = r.request?.system.includes('You are the lead') ? 'lead' : task;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

beforeAll(async () => {
  await ensureBuilt();
  store = await openTestStore();
  fake = await startFakeProvider({
    latencyMs: 20,
    policy: async (request) => {
      if (request.system.includes('You are the lead')) return leadTurn(request);
      const task = request.messages[0]?.content ?? '';
      if (task === CODER_TASK) return coderTurn(request);
      if (hold.holding && task === 'Describe gamma') {
        hold.arrived.resolve();
        await hold.release.promise;
      }
      return { text: `${task.replace('Describe ', '')} is a Greek letter` };
    },
  });
});
afterAll(async () => {
  hold.release.resolve();
  await fake?.close();
  await store?.close();
});

describe("a lead's programs after kill -9 and an edit", () => {
  it('repeat no completed step and re-use the unchanged steps of an earlier program', async () => {
    const repo = createUserRepo({ 'README.md': '# repo\n' }, 'colony-orch-prog-edited-');
    const runId = await killPlannedRunMidProgram({
      repo: repo.dir,
      goal: 'Describe Greek letters',
      baseUrl: fake.url,
      hold,
    });
    const killed = requestsPerTask();
    expect(killed.get('Describe alpha')).toBe(1);
    expect(killed.get('Describe beta')).toBe(1);
    expect(killed.get('Describe gamma')).toBe(1);
    expect(killed.get(CODER_TASK)).toBeUndefined();

    const resumed = await colony(['resume', runId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = await store.log.read(runId);
    const of = <K extends StoredEvent['kind']>(kind: K) =>
      events.filter((e) => e.kind === kind) as StoredEvent<K>[];
    expect(of('run.finished').map((e) => e.data.status)).toEqual(['succeeded']);

    // (a) No completed step ran again: alpha and beta once; gamma twice (in flight at the kill);
    // (b) the edited program asked only delta: alpha, beta and the coder's step were re-used.
    const counts = requestsPerTask();
    expect(counts.get('Describe alpha')).toBe(1);
    expect(counts.get('Describe beta')).toBe(1);
    expect(counts.get('Describe gamma')).toBe(2);
    expect(counts.get('Describe delta')).toBe(1);
    expect(counts.get(CODER_TASK)).toBe(2); // one coder step of two model calls, run once

    // Two programs, in order; the second re-used three steps of the first, naming them.
    const programs = of('workflow.finished').map((e) => e.data.program ?? '');
    expect(programs).toHaveLength(2);
    const [first = '', second = ''] = programs;
    const finished = of('step.finished');
    const reused = finished.filter((e) => e.data.reusedFrom !== undefined);
    expect(reused.map((e) => [e.data.step, e.data.reusedFrom]).sort()).toEqual(
      [
        [`${second}/coder`, `${first}/coder`],
        [`${second}/map-0/explore`, `${first}/map-0/explore`],
        [`${second}/map-1/explore`, `${first}/map-1/explore`],
      ].sort(),
    );
    expect(finished.filter((e) => e.data.step.startsWith(`${second}/`))).toHaveLength(4);

    // The coder's merge landed once, and its file is on the result.
    expect(of('merge.landed')).toHaveLength(1);
    const result = of('run.finished')[0]?.data.resultBranch;
    expect(result).toBeDefined();
    expect((await git(repo.dir, 'show', `${result}:LETTERS.md`)).trim()).toBe('alpha beta gamma');

    // The lead got both programs' results; the edited one with delta's fresh answer.
    const answers = of('tool.finished')
      .filter((e) => e.agent === 'lead' && e.data.name === 'run_workflow')
      .map((e) => JSON.parse(e.data.content.split('\n').slice(1).join('\n')) as unknown);
    expect(answers).toEqual([
      {
        letters: ['alpha is a Greek letter', 'beta is a Greek letter', 'gamma is a Greek letter'],
        written: true,
      },
      {
        letters: ['alpha is a Greek letter', 'beta is a Greek letter', 'delta is a Greek letter'],
        written: true,
      },
    ]);
  }, 180_000);
});
