/**
 * The peers' end condition: the run is done when the verify command passes on hub main and no claim
 * is open. Checked after something lands or a claim is released (debounced; one check at a time;
 * each main commit verified once), so a swarm stops as soon as the goal is met instead of waiting
 * for every peer to say it has nothing left. Main still at the run's base commit never meets the goal:
 * a verify command that passes before any work landed does not tell the goal apart (and on a fleet
 * the check is also poked by a timer, before any peer has started).
 */
import type { MainVerifier } from '../team/verify-main.js';

export interface GoalCheck {
  /** Something landed or was released: check soon. */
  poke(): void;
  stop(): void;
}

export function startGoalCheck(options: {
  verifier: MainVerifier;
  /** The run's base commit: main there has nothing landed. */
  base: string;
  openClaims: () => Promise<number | null>;
  onGoalMet: (commit: string) => void;
  onError: (message: string) => void;
  debounceMs?: number;
}): GoalCheck {
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let again = false;
  let stopped = false;
  const run = async () => {
    timer = null;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      const open = await options.openClaims();
      if (open !== 0) return;
      const { commit, passed } = await options.verifier.verify();
      // A claim taken while verify ran means someone is still working on something.
      if (passed && commit !== options.base && !stopped && (await options.openClaims()) === 0) {
        stopped = true;
        options.onGoalMet(commit);
      }
    } catch (error) {
      options.onError(`goal check failed: ${(error as Error).message}`);
    } finally {
      running = false;
      if (again && !stopped) {
        again = false;
        poke();
      }
    }
  };
  const poke = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => void run(), options.debounceMs ?? 200);
    timer.unref();
  };
  return {
    poke,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
