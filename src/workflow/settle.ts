/**
 * When a workflow program has caught up: a step's end is followed by log writes (step.attempt,
 * step.finished, stage.finished, the next node's stage.started and step.started) before the steps it
 * made ready ask for agent slots. The engine counts its own log writes; `settled()` resolves once
 * none is in flight and a whole event-loop turn started no new one — by then the program's
 * continuations (plain promise callbacks between those writes) have run up to their next wait: a slot,
 * an attempt, a sync point or a back-off. The engine holds the scheduler's grants until then
 * (critical-path.ts, engine.ts), so a freed slot goes to the best step waiting, not the first.
 */

import type { AgentSlots } from './limiter.js';

/** At most this many quiet checks per hold: a program that logs without pause still gets its slots. */
const MAX_ROUNDS = 50;

export class EngineActivity {
  private inFlight = 0;
  private writes = 0;
  private idle: Array<() => void> = [];

  /** Runs one log write of the engine, counted. */
  async track<T>(write: () => Promise<T>): Promise<T> {
    this.inFlight++;
    this.writes++;
    try {
      return await write();
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Resolves once a whole event-loop turn passed with no engine log write in flight or begun. */
  async settled(): Promise<void> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (this.inFlight > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
      const before = this.writes;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.inFlight === 0 && this.writes === before) return;
    }
  }
}

/** Holds the slots' grants until the program settled; a no-op for slots that cannot hold. */
export function holdUntilSettled(slots: AgentSlots, activity: EngineActivity): void {
  const end = slots.hold?.();
  if (end) activity.settled().then(end, end);
}
