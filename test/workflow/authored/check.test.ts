/**
 * A lead's program is type-checked against the `w` declaration (real errors with line:col), refused
 * when it reads the clock, randomness, files, the network or the process, and run in the evaluator
 * against a `w` that holds no host object.
 */
import { describe, expect, it } from 'vitest';
import { checkProgram, renderProblems } from '../../../src/workflow/authored/check.js';
import { evaluatorProgram } from '../../../src/workflow/authored/evaluate.js';
import type { StepResult, Workflow } from '../../../src/workflow/types.js';

async function problems(source: string): Promise<string> {
  const checked = await checkProgram(source);
  return checked.ok ? '' : renderProblems(checked.error);
}

/** A `w` whose steps answer at once: `answer: <task>`. */
function fakeW(calls: string[]): Workflow {
  const w = {
    args: { who: 'lead' },
    agent: (definition: unknown) => ({
      run: async (task: string): Promise<StepResult<string>> => {
        calls.push(`${JSON.stringify(definition)} ${task}`);
        return { ok: true, value: `answer: ${task}`, text: `answer: ${task}`, step: task, attempts: 1 };
      },
    }),
    parallel: <T>(...fns: Array<() => Promise<T>>) => Promise.all(fns.map((f) => f())),
    map: <I, T>(items: readonly I[], fn: (item: I, i: number) => Promise<T>) => Promise.all(items.map(fn)),
    stage: <T>(_name: string, fn: () => Promise<T>) => fn(),
    // In declaration order (the test's nodes are declared after their predecessors).
    dag: async (nodes: Record<string, { run: (inputs: Record<string, unknown>) => Promise<unknown> }>) => {
      for (const node of Object.values(nodes)) await node.run({});
      return {};
    },
    sync: async (point: string, command: string) => ({
      point,
      command,
      passed: true,
      exitCode: 0,
      output: '',
    }),
    dedupe: <T>(items: readonly T[]) => [...items],
  };
  return w as unknown as Workflow;
}

async function run(source: string, calls: string[] = []): Promise<unknown> {
  const checked = await checkProgram(source);
  if (!checked.ok) throw new Error(renderProblems(checked.error));
  return evaluatorProgram(checked.value.js, { args: { who: 'lead' } })(fakeW(calls));
}

describe('a program the lead writes', () => {
  it('is type-checked: errors come back as line:col messages', async () => {
    const text = await problems(
      [
        "const answers = await w.map(['a', 'b'], (x) => w.agent('explore').run(x));",
        'const n: number = answers[0].text;',
        "w.agent('explore').runn('x');",
      ].join('\n'),
    );
    expect(text).toMatch(/^2:30 Property 'text' does not exist on type 'StepResult'/);
    expect(text).toMatch(/3:20 Property 'runn' does not exist/);
  });

  it('is refused when it reads the clock, randomness, files or the network', async () => {
    expect(await problems('return Date.now();')).toMatch(
      /^1:8 Date: a workflow program may not read the clock/,
    );
    expect(await problems('return new Date().getTime();')).toMatch(/Date: .*clock/);
    expect(await problems('return Math.random();')).toMatch(/^1:8 Math.random: .*random numbers/);
    expect(await problems("const fs = require('fs');\nreturn fs;")).toMatch(
      /^1:12 require: a workflow program has no files, network or process/,
    );
    expect(await problems("return await fetch('https://example.com');")).toMatch(
      /fetch: .*no files, network/,
    );
    expect(await problems('return process.env.HOME;')).toMatch(/process: /);
    expect(await problems("return await import('fs');")).toMatch(/import\(\): /);
    expect(await problems('setTimeout(() => {}, 1);')).toMatch(/setTimeout: .*no timers/);
    // A name the program declares itself is its own.
    expect(await problems('const Date = 3;\nreturn Date;')).toBe('');
  });

  it('runs against w and returns its result; steps get plain data', async () => {
    const calls: string[] = [];
    const value = await run(
      [
        "const results = await w.map(['a', 'b', 'c'], (x) => w.agent({ profile: 'explore', name: 'e' }).run(`look at ${x}`));",
        "const staged = await w.stage('s', async () => 'staged');",
        'const dag = await w.dag({ one: { run: async () => 1 }, two: { after: ["one"], run: async (i) => (i.one as number) + 1 } });',
        "const both = await w.parallel(async () => 'p', async () => 'q');",
        'return { answers: results.map((r) => (r.ok ? r.value : r.error.message)), staged, dag, both, who: w.args.who,',
        '  kept: w.dedupe([1, 1, 2], (n) => String(n)) };',
      ].join('\n'),
      calls,
    );
    expect(value).toEqual({
      answers: ['answer: look at a', 'answer: look at b', 'answer: look at c'],
      staged: 'staged',
      dag: { one: 1, two: 2 },
      both: ['p', 'q'],
      who: 'lead',
      kept: [1, 2],
    });
    expect(calls[0]).toBe('{"profile":"explore","name":"e"} look at a');
  });

  it('has no clock, randomness, host objects or code from strings at run time either', async () => {
    const w = fakeW([]);
    const runJs = (js: string) => evaluatorProgram(`${js}\nprogram;`)(w);
    await expect(
      runJs('async function program(w) { return globalThis["Da" + "te"].now(); }'),
    ).rejects.toThrow(/Date.now is not available in a workflow program/);
    await expect(runJs('async function program(w) { return Math["ran" + "dom"](); }')).rejects.toThrow(
      /Math.random is not available/,
    );
    await expect(
      runJs('async function program(w) { return w.agent.constructor("return process")(); }'),
    ).rejects.toThrow(/Code generation from strings disallowed/);
    await expect(
      runJs(
        'async function program(w) { const r = await w.agent("x").run("t"); return r.constructor.constructor("return process")(); }',
      ),
    ).rejects.toThrow(/Code generation from strings disallowed/);
    await expect(
      runJs(
        'async function program(w) { return [typeof require, typeof process, typeof fetch, typeof setTimeout]; }',
      ),
    ).resolves.toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  });

  it('stops a synchronous endless loop', async () => {
    const program = evaluatorProgram('async function program(w) { for (;;) {} }\nprogram;', {
      syncTimeoutMs: 50,
    });
    await expect(program(fakeW([]))).rejects.toThrow(/ran for more than 50 ms without waiting on a step/);
  });
});
