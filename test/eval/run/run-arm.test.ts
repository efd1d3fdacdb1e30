/** The arms `eval run` accepts, and the `colony run` flags and model id of one trial. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArmsOf } from '../../../src/eval/run/run-arm.js';
import { runArgs } from '../../../src/eval/run/run-trial.js';
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
      expect.stringMatching(/^arm "e": model: "scripted" only plays colony demo's scenarios/),
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
