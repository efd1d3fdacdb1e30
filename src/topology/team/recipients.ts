/**
 * Whether a message from the user can still reach a run's agents, checked before it is sent (by
 * `colony send` and the dashboard's send endpoint, so both refuse the same way):
 *   - a finished run reads nothing any more (and its log is closed): every message is refused;
 *   - a direct message needs a recipient that is an agent of the run — one that has started or, before
 *     it starts, is planned (solo's agent, the peers `peer-1` … `peer-N`, the orchestrated lead and
 *     the subagents it created); a workflow's agents are known once they start;
 *   - an agent that has finished takes no more model turns, so it would never read the message (an
 *     orchestrated subagent between tasks may still get another task while the lead runs);
 *   - a channel message is read only at an agent's gather step (message_read or context_read): it
 *     needs an agent with one of those tools that is still working or yet to start (peers, the
 *     orchestrated lead and subagents, workflow agents by default — not solo's agent), and a named
 *     channel one among its members (an agent joins a channel by sending to it).
 * A run or an agent finishing just after the check still leaves the message unread.
 */
import { ALL_CHANNEL, CHANNEL_READING_TOOLS } from '../../coord/index.js';
import type { StoredEvent } from '../../core/events.js';
import type { Result } from '../../lang/result.js';
import { SOLO_AGENT } from '../../run/run-spec.js';
import { parseStoredRunSpec } from '../../run/run-spec-schema.js';
import type { EventLog } from '../../store/types.js';
import { LEAD_AGENT } from '../orchestrated/prompt.js';
import { peerNames } from '../peers.js';

export type MessageRefusalKind = 'finished_run' | 'unknown_agent' | 'finished_agent' | 'no_reader';

/** Who a message from the user is for: one agent, or a channel (`all` or a named one). */
export type UserMessageTarget =
  | { to: string }
  | {
      channel: string;
      /** The agents that joined a named channel (MessageService.channelMembers). */
      members(channel: string): Promise<Result<string[]>>;
    };

export type MessageCheck = { ok: true } | { ok: false; kind: MessageRefusalKind; error: string };

/** Agents named in a refusal before the list is cut short. */
const LISTED_AGENTS = 12;

export async function checkUserMessage(
  log: EventLog,
  runId: string,
  target: UserMessageTarget,
): Promise<MessageCheck> {
  const events = await log.read(runId, {
    kinds: [
      'run.started',
      'run.finished',
      'agent.started',
      'agent.finished',
      'subagent.created',
      'task.started',
      'workflow.finished',
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

  const started = events.find((e) => e.kind === 'run.started');
  const topology = started?.data.topology ?? '';
  const planned = started ? plannedAgents(started) : [];
  const agents = new Set(planned);
  /** Agents whose logged tools read channel messages (a started agent is judged by its own tools). */
  const readsChannels = new Map<string, boolean>(planned.map((a) => [a, plannedReadsChannels(topology)]));
  /** Each agent's last agent.finished, unless a later task.started reopened it. */
  const ended = new Map<string, StoredEvent<'agent.finished'>>();
  for (const event of events) {
    if (event.kind === 'subagent.created') {
      agents.add(event.data.name);
      // Before its first task it has logged no tools: subagents read the shared context by default.
      if (!readsChannels.has(event.data.name)) readsChannels.set(event.data.name, true);
    } else if (!event.agent) continue;
    else if (event.kind === 'agent.started') {
      agents.add(event.agent);
      readsChannels.set(
        event.agent,
        event.data.tools.some((t) => (CHANNEL_READING_TOOLS as readonly string[]).includes(t)),
      );
    } else if (event.kind === 'agent.finished') ended.set(event.agent, event);
    else if (event.kind === 'task.started') ended.delete(event.agent);
  }
  /** Whether `agent` takes more model turns (an orchestrated subagent may get another task). */
  const working = (agent: string) =>
    !ended.has(agent) || (topology === 'orchestrated' && agent !== LEAD_AGENT && !ended.has(LEAD_AGENT));

  if ('channel' in target) {
    const readers = [...agents].filter((a) => working(a) && readsChannels.get(a) === true);
    // A workflow program still running may start more agents; by default they read the context.
    const later = topology === 'workflow' && !events.some((e) => e.kind === 'workflow.finished');
    const instead = `send a direct message instead (--to AGENT; ${describeAgents(topology, [...agents])})`;
    if (target.channel === ALL_CHANNEL) {
      if (readers.length > 0 || later) return { ok: true };
      return {
        ok: false,
        kind: 'no_reader',
        error: `no agent of run ${runId} would read a channel message: ${whyNoReader(topology, agents, working)}; ${instead}`,
      };
    }
    const members = await target.members(target.channel);
    if (!members.ok) return { ok: false, kind: 'no_reader', error: members.error };
    if (members.value.some((m) => readers.includes(m))) return { ok: true };
    const who =
      members.value.length === 0
        ? 'no agent has joined it (an agent joins a channel by sending to it)'
        : `its members (${listNames(members.value)}) read no more messages`;
    return {
      ok: false,
      kind: 'no_reader',
      error: `no agent of run ${runId} would read channel "${target.channel}": ${who}; send to channel ${ALL_CHANNEL}, or ${instead}`,
    };
  }

  const to = target.to;
  if (!agents.has(to)) {
    return {
      ok: false,
      kind: 'unknown_agent',
      error: `run ${runId} has no agent "${to}"; ${describeAgents(topology, [...agents])}`,
    };
  }
  const end = ended.get(to);
  if (end && !working(to)) {
    return {
      ok: false,
      kind: 'finished_agent',
      error: `agent "${to}" of run ${runId} has finished (${end.data.status}: ${end.data.reason}); it reads no more messages`,
    };
  }
  return { ok: true };
}

function describeAgents(topology: string, known: string[]): string {
  if (known.length === 0)
    return topology === 'workflow' ? 'no agent of its workflow has started yet' : 'it has no agents';
  return `${topology === 'workflow' ? 'its agents so far' : 'its agents'}: ${listNames(known)}`;
}

function whyNoReader(topology: string, agents: Set<string>, working: (agent: string) => boolean): string {
  if (agents.size === 0) return 'it has no agents';
  if (![...agents].some(working)) return 'every agent has finished';
  return topology === 'solo'
    ? `its agent (${SOLO_AGENT}) has no message_read or context_read tool, where channel messages are read`
    : 'none of its working agents has message_read or context_read, where channel messages are read';
}

/** Whether a topology's planned agents read channel messages (peers: message_read; the lead: context_read). */
function plannedReadsChannels(topology: string): boolean {
  return topology === 'peers' || topology === 'orchestrated';
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
