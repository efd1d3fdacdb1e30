/**
 * The workflow topology: a workflow program (src/workflow) run as a run, with the same three
 * idempotent phases as solo and peers:
 *   prepare  — the hub
 *   work     — the program; each agent step runs through workflow/host.ts (read-only agents share a
 *              checkout of hub main; writers get their own worktree and land through the integration
 *              queue). On resume the program runs again from the top and logged steps return their results.
 *   finalize — verify hub main (if --verify), remove worktrees, fetch main as colony/<run-id>
 */
import { AgentCoordination } from '../coord/index.js';
import type { RunPhases } from '../run/durable.js';
import { resolveLimits, Scheduler } from '../run/scheduler.js';
import type { EventLog } from '../store/types.js';
import { programFromSource, runWorkflow, type WorkflowOutcome } from '../workflow/index.js';
import { recordedStageWeights } from '../workflow/stage-history.js';
import { IntegrationQueue } from '../workspace/integration/index.js';
import type { IntegrationHooks } from '../workspace/integration/types.js';
import type { RunContext, RunOutcome, Topology } from './context.js';
import { type DecidingEnd, decideRunStatus } from './session/run-verdict.js';
import { coordinationHooks } from './team/integration-hooks.js';
import {
  finalizeTeamRun,
  mergeApproval,
  openTeamRun,
  replayedBudget,
  verifyOnMain,
} from './team/team-run.js';
import { startsSoFar, teamWorkflowHost } from './workflow/host.js';

export const workflowTopology: Topology = { name: 'workflow', phases: workflowPhases };

export function workflowPhases(ctx: RunContext): RunPhases<RunOutcome> {
  const { spec, log } = ctx;
  const team = openTeamRun(ctx);
  const { dir, workspace } = team;
  let outcome: WorkflowOutcome | null = null;

  return {
    async prepare() {
      const opened = await workspace.open();
      if (!opened.ok) throw new Error(opened.error);
    },

    async work() {
      const source = spec.workflow;
      if (!source) throw new Error('a workflow run needs its program (spec.workflow)');
      const loaded = await programFromSource(source.js, dir);
      if (!loaded.ok) throw new Error(loaded.error);
      const queue = new IntegrationQueue({
        runId: spec.runId,
        hubPath: workspace.hubPath,
        workRoot: dir,
        baseCommit: spec.baseCommit,
        verify: spec.mergeVerify ?? spec.verify,
        setup: spec.setup,
        log,
        // Landings and rejections go to the shared context (PATCH, FAIL); the writer's attempt gets
        // its outcome from the queue itself, so the rejection message only goes to the log.
        hooks: { ...coordinationHooks(ctx.coord, spec.runId), sendDirect: logOnlyDirect(log, spec.runId) },
        env: ctx.commandEnv,
        sandbox: ctx.sandbox,
        ...mergeApproval(ctx),
      });
      const budget = await replayedBudget(ctx);
      const host = teamWorkflowHost(ctx, {
        dir,
        workspace,
        queue,
        budget,
        // Workflow agents share a context and claims (claims are leases for one attempt).
        coordination: new AgentCoordination(ctx.coord, spec.runId),
        slots: new Scheduler({
          runId: spec.runId,
          log,
          limits: resolveLimits({
            concurrency: spec.concurrency,
            maxStartsPerAgent: spec.maxStartsPerAgent,
            maxAgents: spec.maxAgents,
          }),
          signal: ctx.signal,
          previousStarts: await startsSoFar(log, spec.runId),
        }),
      });
      try {
        // Node weights of the DAG plans (a resumed run schedules by the plans it logged instead).
        const stageWeights = ctx.history
          ? await recordedStageWeights(ctx.history, { runId: spec.runId, js: source.js })
          : undefined;
        outcome = await runWorkflow(loaded.program, host, {
          args: source.args,
          ...(stageWeights ? { stageWeights } : {}),
        });
      } finally {
        await queue.close();
      }
    },

    finalize: () =>
      finalizeTeamRun(ctx, team, async () =>
        decideRunStatus({
          ends: [await workflowEnd(outcome)],
          endCause: ctx.endCause?.() ?? null,
          verify: await verifyOnMain(ctx, team),
        }),
      ),
  };

  /** The program's end as the run's verdict takes it (after a crash inside finalize: from the log). */
  async function workflowEnd(end: WorkflowOutcome | null): Promise<DecidingEnd> {
    const who = 'the workflow';
    if (end && !end.ok && end.aborted) return { who, end: 'aborted', reason: 'stopped by request' };
    const logged = end ?? (await loggedOutcome());
    if (!logged) return { who, end: 'missing', reason: 'did not finish' };
    if (logged.ok) return { who, end: 'done', reason: 'finished' };
    const finished = await log.read(spec.runId, { kinds: ['agent.finished'] });
    const budgetHit = finished.find(
      (e) => e.data.stopReason === 'budget_usd' || e.data.stopReason === 'budget_tokens',
    );
    return budgetHit
      ? { who, end: 'budget', reason: budgetHit.data.reason }
      : { who, end: 'failed', reason: logged.error };
  }

  async function loggedOutcome(): Promise<WorkflowOutcome | null> {
    const [event] = await log.read(spec.runId, {
      kinds: ['workflow.finished'],
    });
    if (!event) return null;
    return event.data.ok
      ? { ok: true, value: event.data.value, replayed: true }
      : { ok: false, error: event.data.error ?? 'failed', aborted: false, replayed: true };
  }
}

/** The queue's message to a writer whose attempt already has the outcome: logged, not sent. */
function logOnlyDirect(log: EventLog, runId: string): IntegrationHooks['sendDirect'] {
  return async (to, from, text) => {
    await log.append({ runId, agent: to, kind: 'warning', data: { message: `${from}: ${text}` } });
  };
}
