/** The arms `eval run` accepts, and the `colony run` flags and model id of one trial. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArmsOf } from '../../../src/eval/run/run-arm.js';
import { runArgs, trialConfig } from '../../../src/eval/run/run-trial.js';
import { trialModel } from '../../../src/eval/run/trial-model.js';
import { loadTask } from '../../../src/eval/suite/load.js';
import { parseSimModelId } from '../../../src/model/providers/sim-spec.js';

const TASK = join(import.meta.dirname, '..', '..', '..', 'examples', 'eval-suite', 'ledger-three-bugs');

describe('runArmsOf', () => {
  it('names every problem with its arm and field', () => {
    const result = runArmsOf([
      { name: 'a', topology: 'swarm', size: 1, model: 'gpt-5' },
      { name: 'b', topology: 'solo', size: 2, model: 'gpt-5' },
      { name: 'c', topology: 'peers', size: 2 },
      { name: 'd', topology: 'solo', size: 1, model: 'sim:p=2' },
      { name: 'e', topology: 'solo', size: 1, model: 'scripted' },
    ]);
    if (result.ok) throw new Error('expected problems');
    expect(result.errors).toEqual([
      expect.stringMatching(/^arm "a": topology: /),
      'arm "b": size: a solo arm has size 1',
      expect.stringMatching(/^arm "c": model: /),
      expect.stringMatching(/^arm "d": model: sim model 'sim:p=2': p must be a number from 0 to 1/),
      expect.stringMatching(
        /^arm "e": model: "scripted" only plays colony demo's fixed scenarios .* cannot attempt a task/,
      ),
    ]);
  });

  it('keeps free configuration and accepts a team', () => {
    const result = runArmsOf([{ name: 'p4', topology: 'peers', size: 4, model: 'sim:p=0.5', note: 'x' }]);
    expect(result).toMatchObject({ ok: true, arms: [{ name: 'p4', size: 4, note: 'x' }] });
  });
});

describe('a trial', () => {
  const task = loadTask(TASK);
  if (!task.ok) throw new Error(task.error.join('\n'));
  const arm = {
    name: 'peers-3',
    topology: 'peers' as const,
    size: 3,
    model: 'sim:p=0.4&seed=9',
    maxSteps: 50,
    budget: {},
  };

  it('gets a sim model of its own: the task folder and a seed from arm, task and trial', () => {
    const id = trialModel(arm, TASK, 'ledger-three-bugs', 2);
    const parsed = parseSimModelId(id);
    expect(parsed).toMatchObject({
      ok: true,
      spec: { p: 0.4, task: TASK, seed: '9/peers-3/ledger-three-bugs/2' },
    });
    expect(trialModel({ ...arm, model: 'gpt-5' }, TASK, 'x', 0)).toBe('gpt-5');
  });

  it('runs colony run with the arm’s team and the task’s goal and verify', () => {
    const args = runArgs({ arm, task: task.value, trial: 0 }, '/r', 'off');
    const flag = (name: string) => args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
    expect(flag('--repo')).toBe('/r');
    expect(flag('--topology')).toBe('peers');
    expect(flag('--agents')).toBe('3');
    expect(flag('--concurrency')).toBe('3');
    expect(flag('--verify')).toBe('node --test --test-reporter=tap');
    expect(flag('--max-steps')).toBe('50');
    expect(flag('--deadline')).toBe('1800s');
    expect(flag('--sandbox')).toBe('off');
    expect(flag('--goal')).toBe(task.value.spec.goal);
    expect(args.some((a) => a.startsWith('--setup'))).toBe(false);
    expect(args.every((a) => /^--[a-z-]+=/.test(a))).toBe(true);
  });
});

describe('roles, matched budgets and workflow arms', () => {
  const dir = join(import.meta.dirname, '..', '..', '..', 'examples', 'workflows');

  it('gives a role a model only where colony run has that role, naming the roles there are', () => {
    const result = runArmsOf([
      {
        name: 'o',
        topology: 'orchestrated',
        size: 3,
        model: 'sim:p=1',
        models: { lead: 'x', subagent: 'y' },
      },
      { name: 'p', topology: 'peers', size: 2, model: 'gpt-5', models: { integrator: 'x' } },
      {
        name: 'q',
        topology: 'orchestrated',
        size: 2,
        model: 'gpt-5',
        models: { coder: 'x', subagent: 'scripted' },
      },
      { name: 's', topology: 'solo', size: 1, model: 'gpt-5', accept: 'npm test' },
    ]);
    if (result.ok) throw new Error('expected problems');
    expect(result.errors).toEqual([
      'arm "p": models.integrator: no role "integrator" in a peers arm (every agent runs model)',
      'arm "q": models.coder: no role "coder" in a orchestrated arm (roles: lead, subagent)',
      expect.stringMatching(/^arm "q": models.subagent: "scripted" only plays/),
      'arm "s": accept: only an orchestrated arm has an acceptance step',
    ]);
  });

  it('applies the matched budget to every arm; an arm may lower it, never raise it', () => {
    const budget = { usd: 2, tokens: 100_000 };
    const ok = runArmsOf(
      [
        { name: 'a', topology: 'solo', size: 1, model: 'gpt-5' },
        { name: 'b', topology: 'peers', size: 2, model: 'gpt-5', budgetUsd: 1 },
      ],
      { budget },
    );
    expect(ok).toMatchObject({
      ok: true,
      arms: [{ budget: { usd: 2, tokens: 100_000 } }, { budget: { usd: 1, tokens: 100_000 } }],
    });
    const high = runArmsOf(
      [{ name: 'c', topology: 'solo', size: 1, model: 'gpt-5', budgetTokens: 200_000 }],
      {
        budget,
      },
    );
    expect(high).toEqual({
      ok: false,
      errors: [
        'arm "c": budgetTokens: 200000 is above the matched budget (budget.tokens 100000); an arm may only lower it',
      ],
    });
    expect(runArmsOf([{ name: 'd', topology: 'solo', size: 1, model: 'gpt-5' }])).toMatchObject({
      ok: true,
      arms: [{ budget: {} }],
    });
  });

  it('resolves a workflow arm’s program relative to arms.json, and requires one that exists', () => {
    const ok = runArmsOf(
      [{ name: 'w', topology: 'workflow', size: 1, model: 'gpt-5', program: 'review.ts' }],
      {
        armsDir: dir,
      },
    );
    expect(ok).toMatchObject({ ok: true, arms: [{ program: join(dir, 'review.ts') }] });
    const bad = runArmsOf(
      [
        { name: 'w', topology: 'workflow', size: 1, model: 'gpt-5' },
        { name: 'x', topology: 'workflow', size: 1, model: 'gpt-5', program: 'nope.ts' },
        { name: 'y', topology: 'solo', size: 1, model: 'gpt-5', program: 'review.ts' },
      ],
      { armsDir: dir },
    );
    expect(bad).toEqual({
      ok: false,
      errors: [
        'arm "w": program: a workflow arm names its program file (relative to arms.json)',
        `arm "x": program: ${join(dir, 'nope.ts')} does not exist`,
        'arm "y": program: only a workflow arm runs a program (this arm is solo)',
      ],
    });
  });

  it('runs the lead’s model with --model and the subagents’ through config profiles, with the budget', () => {
    const task = loadTask(TASK);
    if (!task.ok) throw new Error(task.error.join('\n'));
    const arm = {
      name: 'orch',
      topology: 'orchestrated' as const,
      size: 3,
      model: 'gpt-5',
      models: { lead: 'sim:p=0', subagent: 'sim:p=1' },
      budget: { usd: 2 },
    };
    const job = { arm, task: task.value, trial: 1 };
    const args = runArgs(job, '/r', 'off', '/t/colony-eval.json');
    const flag = (name: string) => args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
    expect(parseSimModelId(flag('--model') ?? '')).toMatchObject({
      ok: true,
      spec: { p: 0, seed: '0/orch/ledger-three-bugs/1' },
    });
    expect(flag('--budget-usd')).toBe('2');
    expect(flag('--config')).toBe('/t/colony-eval.json');
    const config = trialConfig(job) as { profiles: Record<string, { base: string; model: string }> };
    expect(Object.keys(config.profiles).sort()).toEqual([
      'coder',
      'explore',
      'integrator',
      'plan',
      'reviewer',
    ]);
    expect(config.profiles.coder?.base).toBe('coder');
    // The same seed as the lead: a trial's roles share its draw.
    expect(parseSimModelId(config.profiles.coder?.model ?? '')).toMatchObject({
      ok: true,
      spec: { p: 1, task: TASK, seed: '0/orch/ledger-three-bugs/1' },
    });
    expect(trialConfig({ ...job, arm: { ...arm, models: {} } })).toBeNull();
  });

  it('runs a workflow arm as colony workflow PROGRAM, the goal as an argument, without --deadline', () => {
    const task = loadTask(TASK);
    if (!task.ok) throw new Error(task.error.join('\n'));
    const arm = {
      name: 'w',
      topology: 'workflow' as const,
      size: 1,
      model: 'gpt-5',
      program: '/p/w.mjs',
      budget: {},
    };
    const args = runArgs({ arm, task: task.value, trial: 0 }, '/r', 'off');
    expect(args[0]).toBe('/p/w.mjs');
    expect(args).toContain(`--arg=goal=${task.value.spec.goal}`);
    expect(args.some((a) => a.startsWith('--topology') || a.startsWith('--deadline'))).toBe(false);
  });
});
