/**
 * Exactly-once file effects (agent/in-flight.ts), through the real loop and a real event log: an
 * agent "dies" at a chosen moment of a file tool's call (its log refuses every append from there on
 * and its run is aborted, as a kill leaves the log), then a fresh loop resumes it from the log.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { type AgentSpec, runAgent } from '../../src/agent/loop.js';
import { toolsForProfile } from '../../src/agent/profiles.js';
import type { EventInput, EventKind, StoredEvent } from '../../src/core/events.js';
import { createScrubber } from '../../src/core/secrets.js';
import { createScriptedProvider, type ScriptedPolicy, type ScriptedTurn } from '../../src/model/index.js';
import type { Message } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import type { EventLog } from '../../src/store/types.js';
import { withAfterMutation } from '../../src/tool/after-mutation.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
let root: string;

beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

function freshCheckout(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'colony-in-flight-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content);
  return root;
}

function agentSpec(runId: string, checkout: string, model: ScriptedTurn[] | ScriptedPolicy): AgentSpec {
  const tools = toolsForProfile('coder', checkout);
  if (!tools.ok) throw new Error(tools.error);
  return {
    runId,
    name: 'a1',
    profile: 'coder',
    task: 'add the import',
    system: 'you are a test agent',
    tools: tools.tools,
    provider: createScriptedProvider(model),
    maxSteps: 10,
  };
}

/**
 * The log as a kill leaves it: events up to the moment of death are committed, nothing after.
 * `commitFatal`: the event that kills is committed first (death right after its commit).
 */
function dyingLog(
  log: EventLog,
  fatal: (event: EventInput) => boolean,
  commitFatal: boolean,
  controller: AbortController,
): EventLog {
  let dead = false;
  const die = (): never => {
    dead = true;
    controller.abort();
    throw new Error('the process died');
  };
  return {
    ...log,
    async append<K extends EventKind>(event: EventInput<K>) {
      if (dead) die();
      if (!fatal(event)) return log.append(event);
      if (commitFatal) await log.append(event);
      return die();
    },
    async appendMany() {
      return die();
    },
  };
}

/** Runs the agent until it dies at `fatal`; its events so far are in the log. */
async function runUntilDeath(
  runId: string,
  checkout: string,
  turns: ScriptedTurn[],
  fatal: (event: EventInput) => boolean,
  commitFatal: boolean,
): Promise<void> {
  const controller = new AbortController();
  const outcome = await runAgent(agentSpec(runId, checkout, turns), {
    log: dyingLog(store.log, fatal, commitFatal, controller),
    scrubber: createScrubber([]),
    budget: new Budget({}),
    signal: controller.signal,
    history: [],
  }).catch((error: Error) => error);
  expect(controller.signal.aborted, `the agent never reached its death: ${JSON.stringify(outcome)}`).toBe(
    true,
  );
}

/** Resumes the agent from the log with a model that answers at once; returns what that model was told. */
async function resume(runId: string, checkout: string): Promise<Message[]> {
  let seen: Message[] = [];
  const history = await store.log.read(runId, { agent: 'a1' });
  const outcome = await runAgent(
    agentSpec(runId, checkout, (request) => {
      seen = [...request.messages];
      return { text: 'done' };
    }),
    { log: store.log, scrubber: createScrubber([]), budget: new Budget({}), history },
  );
  expect(outcome).toMatchObject({ status: 'done', stopReason: 'answered' });
  return seen;
}

const toolResults = async (runId: string) =>
  (await store.log.read(runId, { kinds: ['tool.finished'] })) as StoredEvent<'tool.finished'>[];

// An edit whose new text holds its old text: applied twice, the import line would be doubled.
const BEFORE = '// imports\nexport const x = 1;\n';
const AFTER = "// imports\nimport { y } from './y.js';\nexport const x = 1;\n";
const EDIT: ScriptedTurn = {
  toolCalls: [
    {
      name: 'edit',
      arguments: { path: 'a.js', old: '// imports\n', new: "// imports\nimport { y } from './y.js';\n" },
    },
  ],
};
const isKind = (kind: EventKind) => (event: EventInput) => event.kind === kind;

describe('a file tool call in flight at a crash', () => {
  it('killed after the edit was written and before its result was logged: on resume the edit is applied once', async () => {
    const runId = testRunId('in-flight-applied');
    const checkout = freshCheckout({ 'a.js': BEFORE });
    try {
      await runUntilDeath(runId, checkout, [EDIT], isKind('tool.finished'), false);
      // The write landed; its result never reached the log.
      expect(readFileSync(join(checkout, 'a.js'), 'utf8')).toBe(AFTER);
      expect(await toolResults(runId)).toEqual([]);

      const told = await resume(runId, checkout);
      expect(readFileSync(join(checkout, 'a.js'), 'utf8')).toBe(AFTER);
      const [result, ...more] = await toolResults(runId);
      expect(more).toEqual([]);
      expect(result?.data).toMatchObject({
        name: 'edit',
        isError: false,
        content: 'Edited a.js: replaced 1 occurrence at line 1',
        recovered: 'applied',
      });
      // The model reads the result the edit would have given: the conversation goes on as if no crash.
      expect(told.at(-1)).toMatchObject({
        role: 'tool',
        content: 'Edited a.js: replaced 1 occurrence at line 1',
      });
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it('killed after its intent was logged and before it wrote: on resume it runs', async () => {
    const runId = testRunId('in-flight-before');
    const checkout = freshCheckout({ 'a.js': BEFORE });
    try {
      await runUntilDeath(runId, checkout, [EDIT], isKind('tool.intent'), true);
      expect(readFileSync(join(checkout, 'a.js'), 'utf8')).toBe(BEFORE);
      expect(await store.log.read(runId, { kinds: ['tool.intent'] })).toHaveLength(1);

      await resume(runId, checkout);
      expect(readFileSync(join(checkout, 'a.js'), 'utf8')).toBe(AFTER);
      const [result, ...more] = await toolResults(runId);
      expect(more).toEqual([]);
      expect(result?.data.isError).toBe(false);
      expect(result?.data.recovered).toBeUndefined();
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it('a file changed while Colony was down is left as it is, and the model is told', async () => {
    const runId = testRunId('in-flight-changed');
    const checkout = freshCheckout({ 'a.js': BEFORE });
    try {
      await runUntilDeath(runId, checkout, [EDIT], isKind('tool.finished'), false);
      const someoneElse = '// rewritten by hand while Colony was down\n';
      writeFileSync(join(checkout, 'a.js'), someoneElse);

      const told = await resume(runId, checkout);
      expect(readFileSync(join(checkout, 'a.js'), 'utf8')).toBe(someoneElse);
      const [result, ...more] = await toolResults(runId);
      expect(more).toEqual([]);
      expect(result?.data).toMatchObject({ isError: true, recovered: 'changed' });
      expect(result?.data.content).toMatch(/^the file changed while Colony was down: a\.js /);
      expect(told.at(-1)?.content).toBe(result?.data.content);
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it('a write that created its file before the kill is not run again (its result still says Created)', async () => {
    const runId = testRunId('in-flight-write');
    const checkout = freshCheckout({});
    try {
      const write: ScriptedTurn = {
        toolCalls: [{ name: 'write', arguments: { path: 'new.txt', content: 'hi\n' } }],
      };
      await runUntilDeath(runId, checkout, [write], isKind('tool.finished'), false);
      expect(readFileSync(join(checkout, 'new.txt'), 'utf8')).toBe('hi\n');

      await resume(runId, checkout);
      const [result] = await toolResults(runId);
      expect(result?.data).toMatchObject({
        content: 'Created new.txt (3 bytes, 1 lines)',
        isError: false,
        recovered: 'applied',
      });
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it('a file swapped for a link out of the checkout is never read through, even when its target holds the after-state', async () => {
    const runId = testRunId('in-flight-link');
    const checkout = freshCheckout({ 'a.js': BEFORE });
    const outside = mkdtempSync(join(tmpdir(), 'colony-in-flight-outside-'));
    try {
      await runUntilDeath(runId, checkout, [EDIT], isKind('tool.finished'), false);
      writeFileSync(join(outside, 'a.js'), AFTER);
      unlinkSync(join(checkout, 'a.js'));
      symlinkSync(join(outside, 'a.js'), join(checkout, 'a.js'));

      await resume(runId, checkout);
      const [result] = await toolResults(runId);
      expect(result?.data).toMatchObject({ isError: true, recovered: 'changed' });
      expect(result?.data.content).toContain('path leads outside the worktree through a symbolic link');
      expect(readFileSync(join(outside, 'a.js'), 'utf8')).toBe(AFTER);
    } finally {
      rmSync(checkout, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("completed from its file, it still gets the tool's after-step (a fleet worker's push) before its result is logged", async () => {
    const runId = testRunId('in-flight-after');
    const checkout = freshCheckout({ 'a.js': BEFORE });
    try {
      await runUntilDeath(runId, checkout, [EDIT], isKind('tool.finished'), false);
      // What the after-step saw: the results logged when it ran (the soak lost a write whose worker
      // died after the replay logged its result without pushing the checkout).
      const resultsAtAfter: number[] = [];
      const spec = agentSpec(runId, checkout, () => ({ text: 'done' }));
      spec.tools = withAfterMutation(spec.tools, async () => {
        resultsAtAfter.push((await toolResults(runId)).length);
      });
      const outcome = await runAgent(spec, {
        log: store.log,
        scrubber: createScrubber([]),
        budget: new Budget({}),
        history: await store.log.read(runId, { agent: 'a1' }),
      });
      expect(outcome).toMatchObject({ status: 'done' });
      expect(resultsAtAfter).toEqual([0]);
      const [result] = await toolResults(runId);
      expect(result?.data.recovered).toBe('applied');
      expect(readFileSync(join(checkout, 'a.js'), 'utf8')).toBe(AFTER);
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });
});
