/**
 * A fenced stop: the agent's session was taken over by another process (a fleet worker declared gone
 * while alive, a newer epoch, a worker leaving). Such a loop stops without writing anything more —
 * not even `agent.finished` — because the agent is not finished: its new holder continues it from the
 * log, and a logged finish would end it there too.
 */
export interface FencedStop {
  fenced: true;
  reason: string;
}

export function fencedStop(reason: string): FencedStop {
  return { fenced: true, reason };
}

export function isFencedStop(cause: unknown): cause is FencedStop {
  return typeof cause === 'object' && cause !== null && (cause as { fenced?: unknown }).fenced === true;
}
