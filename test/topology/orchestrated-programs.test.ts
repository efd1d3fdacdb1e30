/**
 * The lead writes the plan (issue 32): in a `planned` orchestrated run (leadDelegation `programs`,
 * what `--topology planned` records) the lead's only way to delegate is run_workflow. A real run
 * in-process through executeRun (Postgres, git, the agent loop), every model answered by the fake
 * provider over real HTTP. The lead's first response tries the clock, randomness, a file and the
 * network (each refused, nothing runs); its second program has a type error (the errors come back
 * with line:col); its third maps an explore agent over three items and gets their answers back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { StoredEvent } from '../../src/core/events.js';
import { createProvider } from '../../src/model/index.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { ModelRequest } from '../../src/model/types.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
let fake: FakeProvider;
/** Explore tasks asked of the model, in arrival order. */
const asked: string[] = [];

const REFUSED = [
  'return Date.now();',
  'return Math.random();',
  "const fs = require('fs');\nreturn fs.readFileSync('/etc/passwd', 'utf8');",
  "const r = await fetch('https://example.com');\nreturn r.status;",
];
/** Line 2: `text` is not on a failed StepResult (the lead must check `ok` first). */
const WITH_TYPE_ERROR = [
  "const results = await w.map(['alpha', 'beta', 'gamma'], (item) => w.agent('explore').run(`Describe ${item}`));",
  'return results.map((r) => r.text);',
].join('\n');
const REPAIRED = [
  "const results = await w.map(['alpha', 'beta', 'gamma'], (item) => w.agent('explore').run(`Describe ${item}`));",
  'return results.map((r) => (r.ok ? r.value : `failed: ${r.error.message}`));',
].join('\n');

function leadTurn(request: ModelRequest): ScriptedTurn {
  const n = request.messages.filter((m) => m.role === 'assistant').length;
  if (n === 0)
    return { toolCalls: REFUSED.map((program) => ({ name: 'run_workflow', arguments: { program } })) };
  if (n === 1) return { toolCalls: [{ name: 'run_workflow', arguments: { program: WITH_TYPE_ERROR } }] };
  if (n === 2) return { toolCalls: [{ name: 'run_workflow', arguments: { program: REPAIRED } }] };
  const last = request.messages.at(-1);
  return { text: `done: ${last?.role === 'tool' ? last.content : ''}` };
}

beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({
    policy: (request) => {
      if (request.system.includes('You are the lead')) return leadTurn(request);
      const task = request.messages[0]?.content ?? '';
      asked.push(task);
      return { text: `${task.replace('Describe ', '')} is a Greek letter` };
    },
  });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

const MODEL = {
  id: 'openai-chat:fake',
  protocol: 'openai-chat' as const,
  name: 'fake',
  contextWindow: 128_000,
  maxOutput: 8_192,
  prices: null,
};

function ofKind<K extends StoredEvent['kind']>(events: StoredEvent[], kind: K): StoredEvent<K>[] {
  return events.filter((e) => e.kind === kind) as StoredEvent<K>[];
}

describe('the lead writes the plan (run_workflow)', () => {
  it('refuses clock/random/file/network programs, returns type errors, then runs the repaired program', async () => {
    const repo = createUserRepo({ 'README.md': '# repo\n' }, 'colony-orch-programs-');
    const spec: RunSpec = {
      runId: testRunId('orch-prog'),
      topology: 'orchestrated',
      leadDelegation: 'programs',
      repo: repo.dir,
      goal: 'Describe three Greek letters',
      baseRef: 'HEAD',
      baseCommit: repo.base,
      model: MODEL.id,
      baseUrl: fake.url,
      customModels: [{ ...MODEL, baseUrl: fake.url }],
      maxSteps: 10,
      profile: 'coder',
      stream: false,
      modelTimeoutMs: 30_000,
      maxRetries: 0,
      bashTimeoutS: 30,
    };
    await recordNewRun(store, spec);
    const result = await executeRun({
      store,
      spec,
      provider: createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 0 }),
      env: { ...process.env, OPENAI_API_KEY: 'k' },
      signal: new AbortController().signal,
      resumed: false,
    });
    if (!result.ok) throw new Error(result.error);
    expect(result.summary.status).toBe('succeeded');
    const events = await store.log.read(spec.runId);

    // The lead's tools: no create_subagent/assign_task in a planned run.
    const leadStart = ofKind(events, 'agent.started').find((e) => e.agent === 'lead');
    expect(leadStart?.data.tools).toContain('run_workflow');
    expect(leadStart?.data.tools).not.toContain('assign_task');
    expect(leadStart?.data.tools).not.toContain('create_subagent');

    const results = ofKind(events, 'tool.finished').filter(
      (e) => e.agent === 'lead' && e.data.name === 'run_workflow',
    );
    expect(results).toHaveLength(6);
    const [clock, random, file, network, typeError, repaired] = results.map((e) => e.data);
    for (const refused of [clock, random, file, network]) {
      expect(refused?.isError).toBe(true);
      expect(refused?.content).toMatch(
        /^run_workflow refused: the program uses what a workflow program may not/,
      );
    }
    expect(clock?.content).toContain('1:8 Date: a workflow program may not read the clock');
    expect(random?.content).toContain('1:8 Math.random: a workflow program may not use random numbers');
    expect(file?.content).toContain('1:12 require: a workflow program has no files, network or process');
    expect(network?.content).toContain('1:17 fetch: a workflow program has no files, network or process');
    expect(typeError?.isError).toBe(true);
    expect(typeError?.content).toMatch(/does not type-check \(nothing ran\)/);
    expect(typeError?.content).toMatch(/2:29 Property 'text' does not exist on type 'StepResult'/);

    // Only the repaired program ran: three explore steps, their answers back to the lead as JSON.
    expect(asked.sort()).toEqual(['Describe alpha', 'Describe beta', 'Describe gamma']);
    expect(repaired?.isError).toBe(false);
    expect(repaired?.content).toMatch(/^\[workflow wf3-[^\]]+: done\]\n/);
    expect(JSON.parse(repaired?.content.split('\n').slice(1).join('\n') ?? '')).toEqual([
      'alpha is a Greek letter',
      'beta is a Greek letter',
      'gamma is a Greek letter',
    ]);
    const steps = ofKind(events, 'step.finished');
    expect(steps.map((e) => e.data.step).sort()).toEqual(
      ['map-0', 'map-1', 'map-2'].map((s) => expect.stringMatching(new RegExp(`^wf3-.*/${s}/explore$`))),
    );
    const finished = ofKind(events, 'workflow.finished');
    expect(finished).toHaveLength(1);
    expect(finished[0]?.data.program).toMatch(/^wf3-/);
    const lead = ofKind(events, 'agent.finished').find((e) => e.agent === 'lead');
    expect(lead?.data.finalText).toContain('gamma is a Greek letter');
  }, 120_000);
});
