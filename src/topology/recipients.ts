/**
 * Whether a message from the user can still reach a run's agents, checked before it is sent (by
 * `colony send` and the dashboard's send endpoint, so both refuse the same way):
 *   - a finished run reads nothing any more (and its log is closed): every message is refused;
 *   - a direct message needs a recipient that is an agent of the run — one that has started or, before
 *     it starts, is planned (solo's agent, the peers `peer-1` … `peer-N`, the orchestrated lead and
 *     the subagents it created); a workflow's agents are known once they start;
 *   - an agent that has finished takes no more model turns, so it would never read the message (an
 *     orchestrated subagent between tasks may still get another task while the lead runs).
 * A run or an agent finishing just after the check still leaves the message unread.
 */
import type { StoredEvent } from '../core/events.js';
import { SOLO_AGENT } from '../run/run-spec.js';
import { parseStoredRunSpec } from '../run/run-spec-schema.js';
import type { EventLog } from '../store/types.js';
import { LEAD_AGENT } from './orchestrated/prompt.js';
import { peerNames } from './peers.js';

export type MessageRefusalKind = 'finished_run' | 'unknown_agent' | 'finished_agent';

export type MessageCheck = { ok: true } | { ok: false; kind: MessageRefusalKind; error: string };

/** Agents named in a refusal before the list is cut short. */
const LISTED_AGENTS = 12;

/** `to`: the recipient of a direct message, or null for a channel message. */
export async function checkUserMessage(
  log: EventLog,
  runId: string,
  to: string | null,
): Promise<MessageCheck> {
  const events = await log.read(runId, {
    kinds: [
      'run.started',
      'run.finished',
      'agent.started',
      'agent.finished',
      'subagent.created',
      'task.started',
    ],
  });
  const finished = events.find((e) => e.kind === 'run.finished');
  if (finished) {
    return {
      ok: false,
      kind: 'finished_run',
      error: `run ${runId} has finished (${finished.data.status}); no agent would read the message`,
    };
  }
  if (to === null) return { ok: true };

  const started = events.find((e) => e.kind === 'run.started');
  const topology = started?.data.topology ?? '';
  const agents = new Set(started ? plannedAgents(started) : []);
  /** Each agent's last agent.finished, unless a later task.started reopened it. */
  const ended = new Map<string, StoredEvent<'agent.finished'>>();
  for (const event of events) {
    if (event.kind === 'subagent.created') agents.add(event.data.name);
    else if (!event.agent) continue;
    else if (event.kind === 'agent.started') agents.add(event.agent);
    else if (event.kind === 'agent.finished') ended.set(event.agent, event);
    else if (event.kind === 'task.started') ended.delete(event.agent);
  }

  if (!agents.has(to)) {
    const known = [...agents];
    const list =
      known.length === 0
        ? topology === 'workflow'
          ? 'no agent of its workflow has started yet'
          : 'it has no agents'
        : `${topology === 'workflow' ? 'its agents so far' : 'its agents'}: ${listNames(known)}`;
    return { ok: false, kind: 'unknown_agent', error: `run ${runId} has no agent "${to}"; ${list}` };
  }
  const end = ended.get(to);
  // An orchestrated subagent that finished its task may get another one while the lead works.
  const mayReopen = topology === 'orchestrated' && to !== LEAD_AGENT && !ended.has(LEAD_AGENT);
  if (end && !mayReopen) {
    return {
      ok: false,
      kind: 'finished_agent',
      error: `agent "${to}" of run ${runId} has finished (${end.data.status}: ${end.data.reason}); it reads no more messages`,
    };
  }
  return { ok: true };
}

/** The agents a run has from its start, before any of them logs anything. */
function plannedAgents(started: StoredEvent<'run.started'>): string[] {
  switch (started.data.topology) {
    case 'solo':
      return [SOLO_AGENT];
    case 'orchestrated':
      return [LEAD_AGENT];
    case 'peers': {
      const spec = parseStoredRunSpec(started.data.config);
      return spec.ok ? peerNames(spec.spec.agents ?? 1) : [];
    }
    default:
      return [];
  }
}

function listNames(names: string[]): string {
  if (names.length <= LISTED_AGENTS) return names.join(', ');
  return `${names.slice(0, LISTED_AGENTS - 2).join(', ')} … ${names.at(-1)} (${names.length} in all)`;
}
