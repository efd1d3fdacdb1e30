/**
 * Stalled peers. A working peer with no event for `idleMs` gets a nudge (a direct message, which
 * interrupts it before its next model call). If it still shows no progress after another `idleMs`,
 * it is declared stalled: its claims are no longer renewed, so they expire after their lease and
 * another peer can take its scope over. A stalled peer that moves again is live again.
 */
import type { PeerActivity } from './activity.js';

export interface WatchdogHooks {
  /** Peers working right now (started, not finished). */
  working(): readonly string[];
  nudge(agent: string, idleMs: number): Promise<void>;
  stall(agent: string, idleMs: number): Promise<void>;
  revive(agent: string): void;
}

export interface Watchdog {
  isStalled(agent: string): boolean;
  stop(): void;
}

export const NUDGE_TEXT = (idleS: number) =>
  `Nudge from Colony: you have shown no progress for ${idleS}s. If you are stuck, post a FAIL entry ` +
  'saying what you tried, release your claim and pick another piece; if nothing is left for you, ' +
  'answer with a short summary and no tool call. Your claims stop being renewed if you stay idle.';

export function startWatchdog(activity: PeerActivity, idleMs: number, hooks: WatchdogHooks): Watchdog {
  const nudgedAt = new Map<string, number>();
  const stalled = new Set<string>();
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      const now = Date.now();
      for (const agent of hooks.working()) {
        const last = activity.lastAt(agent);
        if (last === undefined) {
          activity.touch(agent, now);
          continue;
        }
        const nudged = nudgedAt.get(agent);
        if (nudged !== undefined && last > nudged) {
          nudgedAt.delete(agent);
          if (stalled.delete(agent)) hooks.revive(agent);
        }
        if (activity.waiting(agent)) continue;
        const idle = now - last;
        if (idle < idleMs) continue;
        if (!nudgedAt.has(agent)) {
          nudgedAt.set(agent, now);
          await hooks.nudge(agent, idle);
        } else if (!stalled.has(agent) && now - (nudgedAt.get(agent) ?? now) >= idleMs) {
          stalled.add(agent);
          await hooks.stall(agent, idle);
        }
      }
    } finally {
      checking = false;
    }
  };
  // A nudge or stall that failed (the database away) is tried again at the next check.
  const timer = setInterval(() => void check().catch(() => {}), Math.max(50, Math.floor(idleMs / 4)));
  timer.unref();
  return { isStalled: (agent) => stalled.has(agent), stop: () => clearInterval(timer) };
}
