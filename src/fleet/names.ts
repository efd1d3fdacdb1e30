/**
 * The names a fleet's processes agree on: DBOS's queue, workflow and application version, and the
 * timings of heartbeats and failure detection.
 */
import type { AgentEnd } from '../run/agent-end.js';

/** The DBOS queue every fleet worker dequeues agent sessions from. */
export const FLEET_QUEUE = 'colony-agents';
/** The DBOS workflow a worker runs for one agent session (registered by every worker). */
export const SESSION_WORKFLOW = 'colony.agent-session';
/**
 * Pinned, not a hash of the sources: a worker of another build still takes sessions (the session's
 * input is plain data), and recovery re-enqueues a dead worker's sessions under this version.
 */
export const FLEET_VERSION = 'colony-fleet-1';
export const DBOS_APP = 'colony';

/** How often a worker heartbeats and checks its sessions (fencing, run stops). */
export const HEARTBEAT_MS = 1000;
/** A worker silent for this long is declared dead: its sessions are re-enqueued. */
export const LOST_AFTER_MS = 10_000;
/** The queue's polling interval (DBOS's default is 1 s; see bench/README.md § fleet). */
export const QUEUE_POLL_MS = 100;
/** Agent tokens a worker issues live this long and are re-issued before they run out. */
export const TOKEN_TTL_MS = 15 * 60_000;

export function executorIdOf(worker: string): string {
  return `worker:${worker}`;
}

/**
 * A peer's session is its whole life; a subagent's is one task (`<run>/<agent>/<task>`). A session
 * handed to the fleet again because its attempt ended before the agent started gets `#<attempt>`
 * (owner.ts): the ids follow one another, so a resumed owner walks the same ones.
 */
export function sessionWorkflowId(runId: string, agent: string, task?: string, attempt = 1): string {
  const id = task === undefined ? `${runId}/${agent}` : `${runId}/${agent}/${task}`;
  return attempt > 1 ? `${id}#${attempt}` : id;
}

/**
 * What a session workflow is given: which agent of which run, and for an orchestrated subagent which
 * of its tasks (all else is in the log and the database).
 */
export interface SessionInput {
  runId: string;
  agent: string;
  task?: string;
  /** The attempt (absent: the first), when an earlier one ended before the agent started. */
  attempt?: number;
}

/** What a session workflow returns (plain JSON: DBOS stores it): the agent's end and its worker. */
export type SessionEnd = AgentEnd & { worker: string };
