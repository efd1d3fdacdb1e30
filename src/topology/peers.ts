/**
 * The peers topology (issue 4): N identical agents `peer-1` … `peer-N`, no orchestrator. Each has the
 * same prompt (prompts/peer.md; only its ID differs), coder tools + coordination tools + merge_request
 * + sync, and its own lazily created worktree; at most `concurrency` work at once. Changes land on hub
 * main through the integration queue (verified per merge with the run's merge-verify command, by
 * default its verify command; verify itself is the final check on hub main). Three idempotent
 * phases, like solo:
 *   prepare  — the hub
 *   work     — every peer's agent loop (a finished peer returns at once; others replay their log)
 *   finalize — verify hub main in a clean checkout, remove worktrees, fetch main as colony/<run-id>
 */

import { type AgentOutcome, runAgent } from '../agent/loop.js';
import { toolsForProfile } from '../agent/profiles.js';
import { renderRepoSummary, summariseRepo } from '../agent/repo-summary.js';
import { createCoordinationTools } from '../coord/index.js';
import { isKind, type StoredEvent } from '../core/events.js';
import type { RunPhases } from '../run/durable.js';
import type { Tool } from '../tool/types.js';
import { IntegrationQueue } from '../workspace/integration/index.js';
import { createReviewTools } from '../workspace/integration/review-tools.js';
import {
  createMergeRequestTool,
  createMergeStatusTool,
  createSyncTool,
} from '../workspace/integration/tools.js';
import type { RunContext, RunOutcome, Topology } from './context.js';
import { coordinationHooks } from './integration-hooks.js';
import { trackActivity } from './peers/activity.js';
import { startGoalCheck } from './peers/goal-check.js';
import { loadPeerTemplate, peerSystemPrompt, prefixFromSystem, renderPeerPrefix } from './peers/prompt.js';
import { Semaphore } from './peers/semaphore.js';
import { NUDGE_TEXT, startWatchdog } from './peers/watchdog.js';
import { finalizeTeamRun, hubMainVerifier, mergeApproval, openTeamRun, replayedBudget } from './team-run.js';

export const DEFAULT_CONCURRENCY = 64;
export const DEFAULT_IDLE_MS = 5 * 60_000;

export function peerNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `peer-${i + 1}`);
}

type PeerEnd =
  | { agent: string; started: true; outcome: AgentOutcome }
  | { agent: string; started: false; error: string };

export const peersTopology: Topology = { name: 'peers', phases: peersPhases };

export function peersPhases(ctx: RunContext): RunPhases<RunOutcome> {
  const { spec, coord } = ctx;
  const names = peerNames(spec.agents ?? 1);
  // Goal check: something landed or a claim was released.
  let pokeGoal = () => {};
  const activity = trackActivity(ctx.log, (event) => {
    if (event.kind !== 'tool.finished') return;
    const name = event.data.name;
    if (name === 'release' || name === 'merge_request') pokeGoal();
  });
  const log = activity.log;
  // Agents' workspace events count as their activity; run-level and watchdog events (emit) go
  // straight to ctx.log: they are not the peers' own progress.
  const team = openTeamRun(ctx, log);
  const { dir, workspace, emit } = team;
  let ends: PeerEnd[] | null = null;
  const verifier = hubMainVerifier(ctx, team);

  return {
    async prepare() {
      const opened = await workspace.open();
      if (!opened.ok) throw new Error(opened.error);
    },

    async work() {
      const template = loadPeerTemplate();
      if (!template.ok) throw new Error(template.error);
      // With integrators, a verified merge request waits for one of them (never its author) to review it.
      const integrators = peerNames(Math.min(spec.integrators ?? 0, names.length));
      let nextReviewer = 0;
      const queue = new IntegrationQueue({
        runId: spec.runId,
        hubPath: workspace.hubPath,
        workRoot: dir,
        baseCommit: spec.baseCommit,
        verify: spec.mergeVerify ?? spec.verify,
        setup: spec.setup,
        log,
        hooks: coordinationHooks(coord, spec.runId),
        env: ctx.commandEnv,
        sandbox: ctx.sandbox,
        // Wider swarms submit faster: bigger batches amortise the checkout and verify (bisected on failure).
        batchSize: Math.min(32, Math.max(8, Math.floor((spec.concurrency ?? DEFAULT_CONCURRENCY) / 4))),
        // A deep queue of green changes lands in few candidates (batch-window.ts), halved on red.
        maxBatchSize: 128,
        ...(integrators.length > 0
          ? {
              approval: 'manual' as const,
              onAwaitingApproval: (request) => {
                const reviewers = integrators.filter((name) => name !== request.agent);
                const reviewer = reviewers[nextReviewer++ % Math.max(1, reviewers.length)];
                if (!reviewer) return;
                void coord.messages.send({
                  runId: spec.runId,
                  from: 'integration',
                  to: reviewer,
                  text: `MR ${request.mr} by ${request.agent} ("${request.note}") passed the merge check and waits for your review: call review_queue, then review_merge.`,
                });
              },
            }
          : mergeApproval(ctx)),
      });
      const budget = await replayedBudget(ctx);
      const live = new Set<string>();
      const idleMs = spec.idleMs ?? DEFAULT_IDLE_MS;
      const watchdog = startWatchdog(activity, idleMs, {
        working: () => [...live],
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
      const heartbeat = coord.claims.startHeartbeat(() =>
        [...live]
          .filter((agent) => !watchdog.isStalled(agent))
          .map((agent) => ({ runId: spec.runId, agent })),
      );
      const goal = verifier
        ? startGoalCheck({
            verifier,
            openClaims: async () => {
              const held = await coord.claims.held(spec.runId);
              return held.ok ? held.value.length : null;
            },
            onGoalMet: (commit) =>
              ctx.endRun?.({
                status: 'succeeded',
                reason: `verify passed on hub main (${commit.slice(0, 10)}) and no claim is open`,
              }),
            onError: (message) => void emit('warning', { message }),
          })
        : null;
      if (goal) pokeGoal = () => goal.poke();
      // The shared prefix is computed once (from the first worktree) and reused verbatim by every peer.
      let prefix: Promise<string> | null = null;
      const sharedPrefix = (worktree: string, tools: Tool[]) => {
        prefix ??= (async () => {
          for (const event of await log.read(spec.runId, { kinds: ['agent.started'] })) {
            if (!event.agent) continue;
            const system = event.data.system;
            const found = prefixFromSystem(template.text, system, event.agent);
            if (found !== null) return found;
          }
          return ctx.scrubber.scrub(
            renderPeerPrefix(template.text, {
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
        return prefix;
      };

      const runPeer = async (agent: string): Promise<PeerEnd> => {
        const history = await log.read(spec.runId, { agent });
        const started = history.find(isKind('agent.started'));
        const finished = history.find(isKind('agent.finished'));
        // A peer that already finished (before a resume) is not re-run, and needs no worktree.
        if (finished) return { agent, started: true, outcome: outcomeOf(finished) };
        const ws = await workspace.forAgent(agent);
        if (!ws.ok) return { agent, started: false, error: ws.error };
        const { worktree, branch, publish } = ws.value;
        const base = toolsForProfile('coder', worktree, {
          bash: { baseEnv: ctx.commandEnv, defaultTimeoutS: spec.bashTimeoutS, sandbox: ctx.sandbox },
        });
        if (!base.ok) return { agent, started: false, error: base.error };
        const isIntegrator = integrators.includes(agent);
        const toolCtx = {
          runId: spec.runId,
          agent,
          worktree,
          branch,
          publish,
          queue,
          hubPath: workspace.hubPath,
          log,
          // A sole integrator has nobody to review its own changes: they land after the merge check.
          preApproved: isIntegrator && integrators.length === 1,
          // Submit and move on: a peer waiting for the queue would be idle capacity.
          submitAndMoveOn: true,
        };
        const tools = [
          ...base.tools,
          ...createCoordinationTools(coord, spec.runId, agent),
          createMergeRequestTool(toolCtx),
          createMergeStatusTool(toolCtx),
          createSyncTool(toolCtx),
          ...(isIntegrator ? createReviewTools(toolCtx) : []),
        ];
        let system = started?.data.system;
        if (!system) {
          system = peerSystemPrompt(template.text, await sharedPrefix(worktree, tools), agent);
          await emit(
            'agent.started',
            {
              profile: 'peer',
              model: ctx.provider.model.id,
              task: spec.goal,
              system,
              tools: tools.map((t) => t.spec.name),
              maxSteps: spec.maxSteps,
            },
            agent,
          );
        }
        live.add(agent);
        try {
          const outcome = await runAgent(
            {
              runId: spec.runId,
              name: agent,
              profile: 'coder',
              task: spec.goal,
              system,
              tools,
              provider: ctx.provider,
              maxSteps: spec.maxSteps,
              stream: spec.stream,
            },
            {
              log,
              scrubber: ctx.scrubber,
              budget,
              signal: ctx.signal,
              history,
              beforeModelCall: ctx.injectorFor(agent),
            },
          );
          return { agent, started: true, outcome };
        } finally {
          live.delete(agent);
          // A finished peer holds nothing: its open claims go back to the pool, its worktree goes.
          await coord.claims.releaseAll(spec.runId, agent, 'peer finished');
          const removed = await workspace.release(agent);
          if (!removed.ok) await emit('warning', { message: `${agent}: ${removed.error}` }, agent);
        }
      };

      const slots = new Semaphore(Math.max(1, spec.concurrency ?? DEFAULT_CONCURRENCY));
      try {
        ends = await Promise.all(
          names.map((agent) =>
            slots.run(async (): Promise<PeerEnd> => {
              // Queued peers do not start once the run is ending (goal met, stop, deadline).
              if (ctx.signal.aborted) return { agent, started: false, error: 'the run ended first' };
              return runPeer(agent);
            }),
          ),
        );
      } finally {
        goal?.stop();
        watchdog.stop();
        heartbeat.stop();
        await queue.close();
      }
    },

    finalize: () =>
      finalizeTeamRun(ctx, team, async () =>
        decideStatus(ends ?? (await loggedEnds()), verifier ? (await verifier.verify()).passed : null),
      ),
  };

  /** After a crash inside finalize, the peers' ends come from the log. */
  async function loggedEnds(): Promise<PeerEnd[]> {
    const finished = await log.read(spec.runId, {
      kinds: ['agent.finished'],
    });
    return names.map((agent): PeerEnd => {
      const end = finished.find((e) => e.agent === agent);
      return end
        ? { agent, started: true, outcome: outcomeOf(end) }
        : { agent, started: false, error: 'did not finish' };
    });
  }

  async function decideStatus(all: PeerEnd[], verifyPassed: boolean | null): Promise<RunOutcome> {
    const outcomes = all.flatMap((e) => (e.started ? [e.outcome] : []));
    const cause = ctx.endCause?.() ?? null;
    if (cause?.status === 'succeeded' && verifyPassed !== false) return cause;
    const budgetHit = outcomes.find((o) => o.stopReason === 'budget_usd' || o.stopReason === 'budget_tokens');
    if (budgetHit) return { status: 'budget_exhausted', reason: budgetHit.reason };
    if (cause && cause.status !== 'succeeded') return cause;
    if (outcomes.some((o) => o.stopReason === 'aborted'))
      return { status: 'stopped', reason: 'stopped by request' };
    const notStarted = all.filter((e): e is Extract<PeerEnd, { started: false }> => !e.started);
    if (notStarted.length === all.length && notStarted[0])
      return { status: 'failed', reason: `no peer could start: ${notStarted[0].error}` };
    if (verifyPassed === true) {
      return { status: 'succeeded', reason: `${outcomes.length} peer(s) finished and verify passed on main` };
    }
    if (verifyPassed === false)
      return { status: 'failed', reason: `verify command failed on main: ${spec.verify}` };
    const failed = outcomes.filter((o) => o.status !== 'done').length + notStarted.length;
    return failed === 0
      ? { status: 'succeeded', reason: `${outcomes.length} peer(s) finished` }
      : { status: 'failed', reason: `${failed} of ${all.length} peer(s) did not finish` };
  }
}

function outcomeOf(event: StoredEvent<'agent.finished'>): AgentOutcome {
  const d = event.data;
  return {
    status: d.status,
    stopReason: d.stopReason as AgentOutcome['stopReason'],
    reason: d.reason,
    steps: d.steps,
    finalText: d.finalText,
  };
}
