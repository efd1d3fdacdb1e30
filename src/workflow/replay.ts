/** The workflow facts already in the log, by id: what a resumed program returns instead of re-running. */
import type { StoredEvent } from '../core/events.js';
import type { EventLog } from '../store/types.js';

export interface ReplayIndex {
  stagesStarted: Set<string>;
  stagesFinished: Set<string>;
  stepsStarted: Map<string, StoredEvent<'step.started'>['data']>;
  attempts: Map<string, StoredEvent<'step.attempt'>['data']>;
  stepsFinished: Map<string, StoredEvent<'step.finished'>['data']>;
  syncs: Map<string, StoredEvent<'sync.finished'>['data']>;
  /** `w.dag` plans by their `dag` id: a resumed program schedules by the plan it logged. */
  plans: Map<string, StoredEvent<'workflow.planned'>['data']>;
  finished: StoredEvent<'workflow.finished'>['data'] | null;
  /**
   * Steps that earlier programs of this run (the lead's other run_workflow calls) finished ok, by
   * `reuseKey(path in the program, task hash)`, the newest one of each: an edited program re-uses
   * them instead of running them again (none when the run has one program).
   */
  reusable: Map<string, StoredEvent<'step.finished'>['data']>;
  /** The program these facts are read for (its ids start with `<program>/`). */
  program: string | undefined;
}

/** A step's key across a run's programs: its call path inside its program and its task hash. */
export function reuseKey(pathInProgram: string, taskHash: string): string {
  return `${pathInProgram}#${taskHash}`;
}

/** A step id without its program's prefix (`wf3-call_1/map-2/explore` → `map-2/explore`). */
export function pathInProgram(step: string): string {
  return step.slice(step.indexOf('/') + 1);
}

/**
 * The result an earlier program of the run logged for this step of `replay.program` (same path in
 * the program, same task hash), when there is one.
 */
export function reusableStep(
  replay: ReplayIndex,
  step: string,
  taskHash: string,
): StoredEvent<'step.finished'>['data'] | undefined {
  if (replay.program === undefined || !step.startsWith(`${replay.program}/`)) return undefined;
  return replay.reusable.get(reuseKey(pathInProgram(step), taskHash));
}

export function attemptKey(step: string, attempt: number): string {
  return `${step}#${attempt}`;
}

/** `program`: the facts of that program only (ids are unique run-wide, so only its end needs it). */
export async function readReplayIndex(log: EventLog, runId: string, program?: string): Promise<ReplayIndex> {
  const index: ReplayIndex = {
    stagesStarted: new Set(),
    stagesFinished: new Set(),
    stepsStarted: new Map(),
    attempts: new Map(),
    stepsFinished: new Map(),
    syncs: new Map(),
    plans: new Map(),
    finished: null,
    reusable: new Map(),
    program,
  };
  const events = await log.read(runId, {
    kinds: [
      'stage.started',
      'stage.finished',
      'step.started',
      'step.attempt',
      'step.finished',
      'sync.finished',
      'workflow.planned',
      'workflow.finished',
    ],
  });
  for (const event of events) {
    switch (event.kind) {
      case 'stage.started':
        index.stagesStarted.add(event.data.stage);
        break;
      case 'stage.finished':
        index.stagesFinished.add(event.data.stage);
        break;
      case 'step.started': {
        const data = event.data;
        index.stepsStarted.set(data.step, data);
        break;
      }
      case 'step.attempt': {
        const data = event.data;
        index.attempts.set(attemptKey(data.step, data.attempt), data);
        break;
      }
      case 'step.finished': {
        const data = event.data;
        index.stepsFinished.set(data.step, data);
        // Another program's successful step (a program's ids start with its id and a '/').
        const started = index.stepsStarted.get(data.step);
        if (program !== undefined && data.ok && started && !data.step.startsWith(`${program}/`))
          index.reusable.set(reuseKey(pathInProgram(data.step), started.taskHash), data);
        break;
      }
      case 'sync.finished': {
        const data = event.data;
        index.syncs.set(data.step, data);
        break;
      }
      case 'workflow.planned':
        index.plans.set(event.data.dag, event.data);
        break;
      case 'workflow.finished':
        if (event.data.program === program) index.finished = event.data;
        break;
      default:
        break;
    }
  }
  return index;
}
