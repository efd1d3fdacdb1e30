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

import type { EventInput } from '../core/events.js';
import { DEFAULT_CONCURRENCY } from '../core/run-limits.js';
import type { AgentCliAccess } from '../external-agent/index.js';
import { Semaphore } from '../lang/semaphore.js';
import { type AgentEnd, loggedOutcome } from '../run/agent-end.js';
import type { RunPhases } from '../run/durable.js';
import { observeLog } from '../run/observed-log.js';
import { IntegrationQueue } from '../workspace/integration/index.js';
import type { RunContext, RunOutcome, Topology } from './context.js';
import { startGoalCheck } from './peers/goal-check.js';
import { PeerHost } from './peers/peer-host.js';
import { decideRunStatus, decidingEnd } from './session/run-verdict.js';
import { agentCliAccess } from './team/cli-access.js';
import { coordinationHooks } from './team/integration-hooks.js';
import {
  finalizeTeamRun,
  hubMainVerifier,
  mergeApproval,
  openTeamRun,
  replayedBudget,
  verifyOnMain,
} from './team/team-run.js';

export { DEFAULT_IDLE_MS } from './peers/peer-host.js';

/** Fleet runs: how often the goal check looks again (releases on workers are not seen here). */
const FLEET_GOAL_POLL_MS = 2000;

export function peerNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `peer-${i + 1}`);
}

function cliAccessOf(ctx: RunContext, runFolder: string): AgentCliAccess {
  const { gate, upstream } = ctx;
  if (!gate || !upstream) throw new Error("external agent CLIs need the run's rate gate and models");
  return agentCliAccess({ spec: ctx.spec, gate, upstream, runFolder });
}

export const peersTopology: Topology = { name: 'peers', phases: peersPhases };

export function peersPhases(ctx: RunContext): RunPhases<RunOutcome> {
  const { spec, coord } = ctx;
  const names = peerNames(spec.agents ?? 1);
  // Goal check: something landed or a claim was released.
  let pokeGoal = () => {};
  const onPeerEvent = (event: EventInput) => {
    if (event.kind !== 'tool.finished' && event.kind !== 'merge.landed') return;
    const name = event.kind === 'tool.finished' ? (event.data as { name: string }).name : 'merge_request';
    if (name === 'release' || name === 'merge_request') pokeGoal();
  };
  const team = openTeamRun(ctx);
  const { dir, workspace, emit } = team;
  let ends: AgentEnd[] | null = null;
  const verifier = hubMainVerifier(ctx, team);

  return {
    async prepare() {
      const opened = await workspace.open();
      if (!opened.ok) throw new Error(opened.error);
    },

    async work() {
      // With integrators, a verified merge request waits for one of them (never its author) to review it.
      const integrators = peerNames(Math.min(spec.integrators ?? 0, names.length));
      let nextReviewer = 0;
      // The queue's own events (landed, rejected) poke the goal check too: on a fleet, peers' tool
      // events are appended by the workers, not in this process.
      const queueLog = observeLog(ctx.log, onPeerEvent);
      const queue = new IntegrationQueue({
        runId: spec.runId,
        hubPath: workspace.hubPath,
        workRoot: dir,
        baseCommit: spec.baseCommit,
        verify: spec.mergeVerify ?? spec.verify,
        setup: spec.setup,
        log: queueLog,
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
                void coord.messages
                  .send({
                    runId: spec.runId,
                    from: 'integration',
                    to: reviewer,
                    text: `MR ${request.mr} by ${request.agent} ("${request.note}") passed the merge check and waits for your review: call review_queue, then review_merge.`,
                    // Lost with the database: the reviewer still finds it in review_queue.
                  })
                  .catch(() => {});
              },
            }
          : mergeApproval(ctx)),
      });
      // The verify checkout is made while the peers start, not when the first request waits for it.
      queue.prepare();
      // A resumed run: the requests its earlier process had queued but not decided go on.
      await queue.resumePending({ notify: true });
      const fleet = ctx.fleet ?? null;
      // On a fleet, integrators stay here with the queue their review tools act on (docs/fleet.md).
      const onFleet = (agent: string) => fleet !== null && !integrators.includes(agent);
      const host = names.every(onFleet)
        ? null
        : new PeerHost({
            spec,
            log: ctx.log,
            emit,
            scrubber: ctx.scrubber,
            provider: ctx.provider,
            providerForModel: ctx.providerForModel,
            commandEnv: ctx.commandEnv,
            sandbox: ctx.sandbox,
            coord,
            budget: await replayedBudget(ctx),
            signal: ctx.signal,
            injectorFor: ctx.injectorFor,
            workspace,
            integrationFor: () => queue,
            reviewQueue: queue,
            integrators,
            onPeerEvent,
            ...(spec.agentCli ? { agentCli: cliAccessOf(ctx, dir) } : {}),
          });
      const goal = verifier
        ? startGoalCheck({
            verifier,
            base: spec.baseCommit,
            openClaims: async () => {
              const held = await coord.claims.held(spec.runId);
              return held.ok ? held.value.length : null;
            },
            onGoalMet: (commit) =>
              ctx.endRun?.({
                status: 'succeeded',
                reason: `verify passed on hub main (${commit.slice(0, 10)}) and no claim is open`,
              }),
            onError: (message) => void emit('warning', { message }).catch(() => {}),
          })
        : null;
      if (goal) pokeGoal = () => goal.poke();
      // On a fleet a claim released on a worker is not seen here: look again every few seconds.
      const goalTimer = fleet && goal ? setInterval(() => goal.poke(), FLEET_GOAL_POLL_MS) : null;
      const onEnd = () => void fleet?.stop(ctx.endCause() ?? { status: 'stopped', reason: 'the run ended' });
      if (fleet) {
        await fleet.serve({ hubPath: workspace.hubPath, queue });
        ctx.signal.addEventListener('abort', onEnd, { once: true });
      }
      const runOne = (agent: string): Promise<AgentEnd> =>
        fleet && onFleet(agent) ? fleet.runSession(agent) : (host as PeerHost).runPeer(agent);

      const slots = new Semaphore(Math.max(1, spec.concurrency ?? DEFAULT_CONCURRENCY));
      try {
        ends = await Promise.all(
          names.map((agent) =>
            slots.run(async (): Promise<AgentEnd> => {
              // Queued peers do not start once the run is ending (goal met, stop, deadline).
              if (ctx.signal.aborted) return { agent, started: false, error: 'the run ended first' };
              return runOne(agent);
            }),
          ),
        );
      } finally {
        goal?.stop();
        if (goalTimer) clearInterval(goalTimer);
        ctx.signal.removeEventListener('abort', onEnd);
        host?.stop();
        await fleet?.close(ctx.endCause()?.reason ?? 'every peer finished');
        await queue.close();
      }
    },

    finalize: () =>
      finalizeTeamRun(ctx, team, async () =>
        decideRunStatus({
          ends: (ends ?? (await loggedEnds())).map(decidingEnd),
          endCause: ctx.endCause?.() ?? null,
          verify: await verifyOnMain(ctx, team, verifier),
        }),
      ),
  };

  /** After a crash inside finalize, the peers' ends come from the log. */
  async function loggedEnds(): Promise<AgentEnd[]> {
    const finished = await ctx.log.read(spec.runId, {
      kinds: ['agent.finished'],
    });
    return names.map((agent): AgentEnd => {
      const end = finished.find((e) => e.agent === agent);
      return end
        ? { agent, started: true, outcome: loggedOutcome(end) }
        : { agent, started: false, error: 'did not finish' };
    });
  }
}
