/**
 * What hosts the peers of one run in one process: the run owner's in-process peers (peers.ts) and a
 * fleet worker's share of them (src/fleet/) run the same code. A host tracks its peers' activity
 * (the watchdog nudges idle ones), renews the claims of its live, non-stalled peers, shares one
 * system-prompt prefix and runs each peer's agent loop with its tools. What differs between the two
 * is only what is plugged in: the workspace (the hub itself, or a worker's mirror of it that pushes
 * over HTTP) and the integration queue (the queue itself, or its HTTP front at the owner).
 */

import type { Budget } from '../../agent/budget.js';
import { toolsForProfile } from '../../agent/profiles.js';
import { renderRepoSummary, summariseRepo } from '../../agent/repo-summary.js';
import { type Coordination, createCoordinationTools } from '../../coord/index.js';
import { type EventInput, isKind } from '../../core/events.js';
import type { Scrubber } from '../../core/secrets.js';
import { type AgentCliAccess, CliHost } from '../../external-agent/index.js';
import type { Result } from '../../lang/result.js';
import type { Message, Provider } from '../../model/types.js';
import { type AgentEnd, loggedOutcome } from '../../run/agent-end.js';
import type { AgentCliChoice, RunSpec } from '../../run/run-spec.js';
import type { Sandbox } from '../../sandbox/index.js';
import type { EventLog } from '../../store/types.js';
import { withAfterMutation } from '../../tool/after-mutation.js';
import type { Tool } from '../../tool/types.js';
import type { IntegrationQueue } from '../../workspace/integration/index.js';
import { createReviewTools } from '../../workspace/integration/review-tools.js';
import {
  createMergeRequestTool,
  createMergeStatusTool,
  createSyncTool,
  type IntegrationPort,
} from '../../workspace/integration/tools.js';
import type { AgentWorkspace, AgentWorkspaceOptions } from '../../workspace/run-workspace.js';
import type { ProviderFor } from '../context.js';
import { type AgentSessionStart, loopDriver, runAgentSession } from '../session/agent-session.js';
import type { Emit } from '../team/team-run.js';
import { type PeerActivity, trackActivity } from './activity.js';
import { peerMaxSteps, peerModel } from './peer-settings.js';
import { loadPeerTemplate, peerSystemPrompt, prefixFromSystem, renderPeerPrefix } from './prompt.js';
import { NUDGE_TEXT, startWatchdog, type Watchdog } from './watchdog.js';

export const DEFAULT_IDLE_MS = 5 * 60_000;

/** Where a host's peers work: their repositories and the hub they sync with. */
export interface PeerWorkspace {
  /** The hub (or a worker's mirror of it) the sync tool reads main from. */
  hubPath: string;
  forAgent(agent: string, options?: AgentWorkspaceOptions): Promise<Result<AgentWorkspace>>;
  release(agent: string): Promise<Result<void>>;
}

export interface PeerHostOptions {
  spec: RunSpec;
  /** The run's (scrubbed) log; the host wraps it to track activity. */
  log: EventLog;
  /** Run-level events (nudges, warnings); they do not count as a peer's progress. */
  emit: Emit;
  scrubber: Scrubber;
  provider: Provider;
  /** Another model's provider (a peer with a model of its own: `spec.peerSettings`), behind the same gate. */
  providerForModel: ProviderFor;
  commandEnv: NodeJS.ProcessEnv;
  sandbox: Sandbox | null;
  coord: Coordination;
  budget: Budget;
  /** Aborted when the run ends early. */
  signal: AbortSignal;
  injectorFor(agent: string): () => Promise<Message[]>;
  workspace: PeerWorkspace;
  /** The integration queue as this agent's merge tools reach it. */
  integrationFor(agent: string): IntegrationPort;
  /** The queue itself, for integrators' review tools (only where it lives: the owner). */
  reviewQueue?: IntegrationQueue;
  /** Peers that review merge requests (`--integrators`). */
  integrators: string[];
  /** Called with every event a peer appends (the goal check listens for releases and merges). */
  onPeerEvent?: (event: EventInput) => void;
  /**
   * Runs after each call of a tool that changes the checkout, before its result is logged (a fleet
   * worker pushes the agent's work in progress there: a logged edit is never lost with its worker).
   */
  afterMutation?: (agent: string) => Promise<void>;
  /**
   * What peers driven by an external CLI (`spec.agentCli`) need: the token secret, the rate gate and
   * models for the model proxy (src/external-agent/). Absent: such a peer does not start.
   */
  agentCli?: AgentCliAccess;
}

export class PeerHost {
  readonly log: EventLog;
  private readonly activity: PeerActivity;
  private readonly live = new Set<string>();
  private readonly watchdog: Watchdog;
  private readonly heartbeat: { stop(): void };
  private prefix: Promise<string> | null = null;
  private readonly template = loadPeerTemplate();
  private readonly cliHost: CliHost | null;

  constructor(private readonly options: PeerHostOptions) {
    const { spec, coord, emit } = options;
    this.activity = trackActivity(options.log, options.onPeerEvent);
    this.log = this.activity.log;
    // The proxy logs a CLI's model calls through the host's log: they count as the peer's activity.
    this.cliHost = options.agentCli
      ? new CliHost(options.agentCli, {
          runId: spec.runId,
          deadlineAt: spec.deadlineAt,
          log: this.log,
          budget: options.budget,
          scrubber: options.scrubber,
        })
      : null;
    this.watchdog = startWatchdog(this.activity, spec.idleMs ?? DEFAULT_IDLE_MS, {
      working: () => [...this.live],
      async nudge(agent, idle) {
        const sent = await coord.messages.send({
          runId: spec.runId,
          from: 'colony',
          to: agent,
          text: NUDGE_TEXT(Math.round(idle / 1000)),
        });
        if (sent.ok) await emit('agent.nudged', { idleMs: idle, messageId: sent.value.id }, agent);
      },
      async stall(agent, idle) {
        await emit('agent.stalled', { idleMs: idle }, agent);
      },
      revive: () => {},
    });
    // Stalled peers' claims are not renewed: they lapse and another peer may take the scope over.
    this.heartbeat = coord.claims.startHeartbeat(() =>
      [...this.live]
        .filter((agent) => !this.watchdog.isStalled(agent))
        .map((agent) => ({ runId: spec.runId, agent })),
    );
  }

  /** The agents this host runs now. */
  working(): string[] {
    return [...this.live];
  }

  /**
   * Runs one peer until it finishes (a peer that already finished returns at once; one with a log
   * replays it). `signal` ends this peer alone (a fleet worker that lost the session).
   */
  async runPeer(agent: string, signal?: AbortSignal): Promise<AgentEnd> {
    const { spec, coord } = this.options;
    const log = this.log;
    const template = this.template;
    if (!template.ok) return { agent, started: false, error: template.error };
    const history = await log.read(spec.runId, { agent });
    const finished = history.find(isKind('agent.finished'));
    if (finished) return { agent, started: true, outcome: loggedOutcome(finished) };
    // A peer may have a model and a step cap of its own (spec.peerSettings).
    const own = peerModel(spec, agent);
    const model =
      own === undefined
        ? { ok: true as const, provider: this.options.provider }
        : this.options.providerForModel(own);
    if (!model.ok) return { agent, started: false, error: model.error };
    const maxSteps = peerMaxSteps(spec, agent);
    // A built-in peer's tools fill its checkout as they go; a CLI has file tools of its own.
    const ws = await this.options.workspace.forAgent(agent, { lazy: !cliOf(spec, agent) });
    if (!ws.ok) return { agent, started: false, error: ws.error };
    const { worktree, branch, publish, fill } = ws.value;
    const base = toolsForProfile('coder', worktree, {
      bash: {
        baseEnv: this.options.commandEnv,
        defaultTimeoutS: spec.bashTimeoutS,
        sandbox: this.options.sandbox,
      },
      fill,
    });
    if (!base.ok) return { agent, started: false, error: base.error };
    const { integrators } = this.options;
    const isIntegrator = integrators.includes(agent);
    const toolCtx = {
      runId: spec.runId,
      agent,
      worktree,
      branch,
      publish,
      queue: this.options.integrationFor(agent),
      hubPath: this.options.workspace.hubPath,
      log,
      // A sole integrator has nobody to review its own changes: they land after the merge check.
      preApproved: isIntegrator && integrators.length === 1,
      // Submit and move on: a peer waiting for the queue would be idle capacity.
      submitAndMoveOn: true,
    };
    const review = isIntegrator && this.options.reviewQueue ? this.options.reviewQueue : null;
    const after = this.options.afterMutation;
    const coderTools = after ? withAfterMutation(base.tools, () => after(agent)) : base.tools;
    const tools = [
      ...coderTools,
      ...createCoordinationTools(coord, spec.runId, agent),
      createMergeRequestTool(toolCtx),
      createMergeStatusTool(toolCtx),
      createSyncTool(toolCtx),
      ...(review ? createReviewTools({ ...toolCtx, queue: review }) : []),
    ];
    const cli = cliOf(spec, agent);
    if (cli && !this.cliHost)
      return {
        agent,
        started: false,
        error: `${agent} is driven by ${cli.kind}, which this host cannot run`,
      };
    this.live.add(agent);
    const peerSignal = signal ? AbortSignal.any([this.options.signal, signal]) : this.options.signal;
    try {
      const start: AgentSessionStart = {
        runId: spec.runId,
        agent,
        log,
        scrubber: this.options.scrubber,
        history,
        profile: 'peer',
        // A peer's CLI may call a model of its own.
        model: cli?.model ?? own ?? this.options.provider.model.id,
        task: spec.goal,
        tools: tools.map((t) => t.spec.name),
        maxSteps,
        system: async () =>
          peerSystemPrompt(template.text, await this.sharedPrefix(template.text, worktree, tools), agent),
      };
      // What drives the loop is the one difference between a built-in peer and a CLI-driven one.
      const outcome = await runAgentSession(start, (system) =>
        cli && this.cliHost
          ? {
              kind: 'cli',
              host: this.cliHost,
              request: {
                cli,
                agent,
                goal: spec.goal,
                system,
                worktree,
                tools: tools.filter((t) => !coderTools.includes(t)),
                sandbox: this.options.sandbox,
                baseEnv: this.options.commandEnv,
                history,
                signal: peerSignal,
                messages: this.options.injectorFor(agent),
              },
            }
          : loopDriver(start, system, {
              profile: 'coder',
              tools,
              provider: model.provider,
              budget: this.options.budget,
              stream: spec.stream,
              signal: peerSignal,
              beforeModelCall: this.options.injectorFor(agent),
            }),
      );
      return { agent, started: true, outcome };
    } finally {
      this.live.delete(agent);
      // A session taken over by another worker is theirs now: nothing of it is touched here.
      if (!signal?.aborted || this.options.signal.aborted) {
        // A finished peer holds nothing: its open claims go back to the pool, its worktree goes.
        await coord.claims.releaseAll(spec.runId, agent, 'peer finished');
        const removed = await this.options.workspace.release(agent);
        if (!removed.ok) await this.options.emit('warning', { message: `${agent}: ${removed.error}` }, agent);
      }
    }
  }

  stop(): void {
    this.watchdog.stop();
    this.heartbeat.stop();
  }

  /** The shared prefix: the one peers already logged, else rendered once from the first worktree. */
  private sharedPrefix(template: string, worktree: string, tools: Tool[]): Promise<string> {
    const { spec, integrators, scrubber } = this.options;
    this.prefix ??= (async () => {
      for (const event of await this.log.read(spec.runId, { kinds: ['agent.started'] })) {
        if (!event.agent) continue;
        const found = prefixFromSystem(template, event.data.system, event.agent);
        if (found !== null) return found;
      }
      return scrubber.scrub(
        renderPeerPrefix(template, {
          goal: spec.goal,
          verify: spec.verify,
          mergeCheck: spec.mergeVerify ?? spec.verify,
          integrators,
          // The review tools are named in the integrators section; the list stays the same for all.
          tools: tools.map((t) => t.spec.name).filter((name) => !name.startsWith('review_')),
          repository: renderRepoSummary(summariseRepo(worktree)),
        }),
      );
    })();
    return this.prefix;
  }
}

/** The external CLI that drives `agent`'s loop, if any (spec.agentCli: every peer or those named). */
export function cliOf(spec: RunSpec, agent: string): AgentCliChoice | null {
  const cli = spec.agentCli;
  if (!cli) return null;
  const own = cli.byAgent?.[agent];
  if (own) return own;
  return !cli.agents || cli.agents.includes(agent)
    ? { kind: cli.kind, ...(cli.command ? { command: cli.command } : {}) }
    : null;
}
