/**
 * What one agent may see and move in the hub over smart HTTP. It sees `main` (and HEAD, which points
 * at it) and its own refs; it may push only its own refs, and delete none (the hub keeps everything:
 * a deleted ref takes its reflog with it).
 */
import { HUB_MAIN } from '../hub/hub.js';

export function agentBranchRef(agent: string): string {
  return `refs/heads/agent/${agent}`;
}

/** Where a worker keeps the agent's work in progress, so a recovered agent finds its files. */
export function agentWipRef(agent: string): string {
  return `refs/colony/wip/${agent}`;
}

export function pushableRefs(agent: string): string[] {
  return [agentBranchRef(agent), agentWipRef(agent)];
}

/**
 * `transfer.hideRefs` values (later entries win, and these come after every config file's): hide
 * all refs, then expose main and the agent's own. upload-pack and receive-pack both honour them; a
 * hidden ref is neither advertised nor updatable.
 */
export function hideRefsFor(agent: string): string[] {
  return ['refs', `!refs/heads/${HUB_MAIN}`, ...pushableRefs(agent).map((ref) => `!${ref}`)];
}

export interface RefUpdate {
  oldId: string;
  newId: string;
  ref: string;
}

/** Why this agent may not make this update, or null when it may. */
export function refusalOf(agent: string, update: RefUpdate): string | null {
  const own = pushableRefs(agent);
  if (/^0+$/.test(update.newId)) return 'deleting refs in the hub is not allowed';
  if (!own.includes(update.ref)) return `agent ${agent} may push only ${own.join(' and ')}`;
  return null;
}
