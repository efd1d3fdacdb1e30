/**
 * One agent session: the one way every topology starts an agent — solo, a peer, the orchestrated
 * lead, a subagent's task, a workflow step — in the run's process or on a fleet worker alike.
 *
 * An agent starts once: its first session builds its system prompt, scrubs it and logs
 * `agent.started` (profile, model, task, prompt, tools, step cap); every later session of the same
 * agent (a resumed run, a worker taking it over, a subagent's next task) uses the logged prompt as is,
 * so the conversation it replays is the one the model saw. Then what drives the loop — Colony's loop or
 * an external CLI (drive-agent.ts) — is the only choice left.
 */
import type { Budget } from '../../agent/budget.js';
import type { AgentDeps, AgentOutcome } from '../../agent/loop.js';
import { eventOf, isKind, type StoredEvent } from '../../core/events.js';
import type { Scrubber } from '../../core/secrets.js';
import type { Message, Provider } from '../../model/types.js';
import type { EventLog } from '../../store/types.js';
import type { Tool } from '../../tool/types.js';
import { type AgentDriver, driveAgent } from './drive-agent.js';

export interface AgentSessionStart {
  runId: string;
  agent: string;
  log: EventLog;
  scrubber: Scrubber;
  /** The agent's events so far (empty for an agent that never ran). */
  history: readonly StoredEvent[];
  /** What `agent.started` records (the profile as the run names it, the model the agent calls). */
  profile: string;
  model: string;
  task: string;
  tools: readonly string[];
  maxSteps: number;
  /** Built only for an agent that never started: a resumed one keeps its logged prompt. */
  system: () => string | Promise<string>;
}

export interface OpenedSession {
  /** The system prompt, as logged. */
  system: string;
  /** The `agent.started` append of a first session (null when the agent had started before). */
  started: Promise<StoredEvent<'agent.started'>> | null;
}

/**
 * The agent's system prompt and, for its first session, the `agent.started` append — issued before
 * this returns but not awaited, so a caller may append in the same commit (a subagent's task.started).
 */
export async function openAgentSession(start: AgentSessionStart): Promise<OpenedSession> {
  const logged = start.history.find(isKind('agent.started'));
  if (logged) return { system: logged.data.system, started: null };
  const system = start.scrubber.scrub(await start.system());
  const data = start.scrubber.scrubValue({
    profile: start.profile,
    model: start.model,
    task: start.task,
    system,
    tools: [...start.tools],
    maxSteps: start.maxSteps,
  });
  const started = start.log.append(eventOf(start.runId, start.agent, 'agent.started', data));
  return { system, started };
}

/** What Colony's own loop needs beyond the session's start: its tools, model, budget and signals. */
export interface LoopParts {
  tools: Tool[];
  provider: Provider;
  budget: Budget;
  stream?: boolean;
  signal?: AbortSignal;
  beforeModelCall?: () => Promise<Message[]>;
  beforeFinish?: AgentDeps['beforeFinish'];
  onOutcome?: AgentDeps['onOutcome'];
  /** Where the loop's own differ from what agent.started records (a peer's loop runs as `coder`). */
  profile?: string;
  task?: string;
  maxSteps?: number;
}

/** Colony's loop for this session: the start's identity, log and history with the loop's parts. */
export function loopDriver(start: AgentSessionStart, system: string, parts: LoopParts): AgentDriver {
  return {
    kind: 'loop',
    spec: {
      runId: start.runId,
      name: start.agent,
      profile: parts.profile ?? start.profile,
      task: parts.task ?? start.task,
      system,
      tools: parts.tools,
      provider: parts.provider,
      maxSteps: parts.maxSteps ?? start.maxSteps,
      stream: parts.stream,
    },
    deps: {
      log: start.log,
      scrubber: start.scrubber,
      budget: parts.budget,
      signal: parts.signal,
      history: start.history,
      beforeModelCall: parts.beforeModelCall,
      ...(parts.beforeFinish ? { beforeFinish: parts.beforeFinish } : {}),
      onOutcome: parts.onOutcome,
    },
  };
}

/**
 * Opens the agent's session and drives its loop: Colony's own (`LoopParts`) or whatever `driver`
 * returns for the logged system prompt (an external CLI, or either).
 */
export async function runAgentSession(
  start: AgentSessionStart,
  drive: LoopParts | ((system: string) => AgentDriver),
): Promise<AgentOutcome> {
  const opened = await openAgentSession(start);
  if (opened.started) await opened.started;
  return driveAgent(
    typeof drive === 'function' ? drive(opened.system) : loopDriver(start, opened.system, drive),
  );
}
