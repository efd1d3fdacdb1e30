/**
 * What the tests of a lead's programs under kill -9 share: a `--topology planned` run on the fake
 * provider, held by the provider at its third step ("Describe gamma") and killed with -9 once two
 * steps' `step.finished` were committed (the --json lines are committed events).
 */
import { expect } from 'vitest';
import { parseEventLine, startColony } from '../durability/harness.js';

export interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

export function deferred(): Deferred {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The provider holds the third step while `holding`; `arrived` when it got there. */
export interface StepHold {
  holding: boolean;
  arrived: Deferred;
  release: Deferred;
}

/** Starts the planned run, kills it -9 with two steps finished and the third held; its run id. */
export async function killPlannedRunMidProgram(options: {
  repo: string;
  goal: string;
  baseUrl: string;
  hold: StepHold;
}): Promise<string> {
  const { hold } = options;
  const c = startColony([
    'run',
    '--topology',
    'planned',
    '--repo',
    options.repo,
    '--goal',
    options.goal,
    '--model',
    'openai-chat:fake',
    '--base-url',
    options.baseUrl,
    '--json',
  ]);
  try {
    const arrived = await Promise.race([c.exited.then(() => false), hold.arrived.promise.then(() => true)]);
    expect(arrived, `the run ended before the third step: ${c.stderr()}`).toBe(true);
    const committed = await Promise.race([
      c.exited.then(() => false),
      new Promise<true>((resolve) => {
        let finished = 0;
        const check = (line: string) => {
          if (parseEventLine(line)?.kind === 'step.finished' && ++finished === 2) resolve(true);
        };
        for (const line of c.lines) check(line);
        c.onLine(check);
      }),
    ]);
    expect(committed, `the run ended before two steps finished: ${c.stderr()}`).toBe(true);
    c.child.kill('SIGKILL');
    expect((await c.exited).signal).toBe('SIGKILL');
  } finally {
    hold.holding = false;
    hold.release.resolve();
  }
  const runId = await c.runId;
  if (!runId) throw new Error('the run printed no run id');
  return runId;
}
