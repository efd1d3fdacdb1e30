/**
 * The orchestrated topology (issue 5, REFERENCE §1): one lead agent plus subagents it defines with
 * `create_subagent` and drives with `assign_task`. The calls of one lead response run in parallel
 * (bounded by the run's Scheduler); the lead's next turn sees only each task's result. Writers land
 * through the integration queue; the run's verify is the final check on hub main. Three idempotent
 * phases, like solo and peers:
 *   prepare  — the hub
 *   work     — the lead's loop (its tasks run the subagents; all replay their logs on resume)
 *   finalize — verify hub main in a clean checkout, remove worktrees, fetch main as colony/<run-id>
 */

import type { AgentOutcome } from '../agent/loop.js';
import { PROFILE_NAMES, type ProfileDefinition, toolsForProfile } from '../agent/profiles.js';
import { renderRepoSummary, summariseRepo } from '../agent/repo-summary.js';
import { AgentCoordination, createContextReadTool, createContextUnfoldTool } from '../coord/index.js';
import { CliHost } from '../external-agent/index.js';
import type { FleetOwner } from '../fleet/owner.js';
import type { Message } from '../model/types.js';
import { readLoggedOutcome } from '../run/agent-end.js';
import type { RunPhases } from '../run/durable.js';
import { resolveLimits, Scheduler } from '../run/scheduler.js';
import type { Tool } from '../tool/types.js';
import { IntegrationQueue } from '../workspace/integration/index.js';
import type { RunContext, RunOutcome, Topology } from './context.js';
import { ACCEPT_LEAD_STEP, DEFAULT_ACCEPT_ROUNDS, runAcceptance } from './orchestrated/accept.js';
import { ACCEPTANCE_AGENT } from './orchestrated/accept-check.js';
import { LeadPrograms, NOTICE_SENDER } from './orchestrated/background-programs.js';
import { LEAD_AGENT, leadSystemPrompt } from './orchestrated/prompt.js';
import { createRunWorkflowTool, runCheckedProgram } from './orchestrated/run-workflow-tool.js';
import { runHasSubagentClis, type SubagentCli, subagentCliChoice } from './orchestrated/subagent-cli.js';
import { failedTask } from './orchestrated/subagent-task.js';
import { Team } from './orchestrated/team.js';
import { createAssignTaskTool, createSubagentTool } from './orchestrated/tools.js';
import { createWorkflowStatusTool } from './orchestrated/workflow-status-tool.js';
import { runAgentSession } from './session/agent-session.js';
import { decideRunStatus, decidingOutcome } from './session/run-verdict.js';
import { agentCliAccess } from './team/cli-access.js';
import { coordinationHooks } from './team/integration-hooks.js';
import {
  finalizeTeamRun,
  mergeApproval,
  openTeamRun,
  replayedBudget,
  verifyOnMain,
} from './team/team-run.js';
import { startsSoFar, teamWorkflowHost } from './workflow/host.js';

export const DEFAULT_SUBAGENT_STEPS = 100;

export const orchestratedTopology: Topology = { name: 'orchestrated', phases: orchestratedPhases };

export function orchestratedPhases(ctx: RunContext): RunPhases<RunOutcome> {
  const { spec, log } = ctx;
  const team = openTeamRun(ctx);
  const { dir, workspace, emit } = team;
  const profiles: Record<string, ProfileDefinition> = spec.profiles ?? {};
  let leadOutcome: AgentOutcome | null = null;

  return {
    async prepare() {
      const opened = await workspace.open();
      if (!opened.ok) throw new Error(opened.error);
    },

    async work() {
      const limits = resolveLimits({
        concurrency: spec.concurrency,
        maxStartsPerAgent: spec.maxStartsPerAgent,
        maxAgents: spec.maxAgents,
      });
      const budget = await replayedBudget(ctx);
      const cli = subagentClis(budget, (agent) => team.subagents.get(agent)?.model);
      const queue = new IntegrationQueue({
        runId: spec.runId,
        hubPath: workspace.hubPath,
        workRoot: dir,
        baseCommit: spec.baseCommit,
        verify: spec.mergeVerify ?? spec.verify,
        setup: spec.setup,
        log,
        // Landings and rejections go to the shared context (PATCH, FAIL: the team sees them); the
        // outcome itself merge_request returns to the subagent, which waited for it: no message.
        hooks: { ...coordinationHooks(ctx.coord, spec.runId), sendDirect: async () => {} },
        env: ctx.commandEnv,
        sandbox: ctx.sandbox,
        ...mergeApproval(ctx),
      });
      const bash = { baseEnv: ctx.commandEnv, defaultTimeoutS: spec.bashTimeoutS, sandbox: ctx.sandbox };
      // Fleet runs: the lead stays here; each subagent task is a session on a worker, which reaches
      // the hub and this queue through the gateway with the subagent's own token.
      const fleet = ctx.fleet ?? null;
      const onEnd = () => void fleet?.stop(ctx.endCause() ?? { status: 'stopped', reason: 'the run ended' });
      if (fleet) {
        await fleet.serve({ hubPath: workspace.hubPath, queue });
        ctx.signal.addEventListener('abort', onEnd, { once: true });
      }
      // Subagents share a context and claims (their claims are leases for one task); on fleet workers
      // the worker holds them (worker-run.ts).
      const coordination = new AgentCoordination(ctx.coord, spec.runId);
      // The scheduler is built after the team has read the log, so start counts survive a resume.
      let scheduler: Scheduler | null = null;
      const team: Team = new Team({
        runId: spec.runId,
        log,
        scrubber: ctx.scrubber,
        budget,
        signal: ctx.signal,
        get scheduler() {
          if (!scheduler) throw new Error('scheduler used before the team was loaded');
          return scheduler;
        },
        workspace,
        queue,
        providerFor: ctx.providerForModel,
        profiles,
        subagentMaxSteps: spec.subagentMaxSteps ?? DEFAULT_SUBAGENT_STEPS,
        maxAgents: limits.maxAgents,
        bash,
        stream: spec.stream,
        injectorFor: (agent) => ctx.injectorFor(agent),
        ...(fleet ? { remote: (agent, task) => runOnFleet(fleet, agent, task.task) } : {}),
        ...(cli ? { cli } : {}),
        ...(coordination ? { coordination } : {}),
      });
      await team.load();
      scheduler = new Scheduler({
        runId: spec.runId,
        log,
        limits,
        signal: ctx.signal,
        previousStarts: { ...(await programStarts(team)), ...team.previousStarts() },
      });
      const delegation = spec.leadDelegation ?? 'both';
      const slots = scheduler;
      let leadPrograms: LeadPrograms | null = null;
      let workflowTools: Tool[] = [];
      try {
        const history = await log.read(spec.runId, { agent: LEAD_AGENT });
        const ws = await workspace.forAgent(LEAD_AGENT);
        if (!ws.ok) throw new Error(ws.error);
        const { worktree } = ws.value;
        const base = toolsForProfile('plan', worktree);
        if (!base.ok) throw new Error(base.error);
        // The lead reads the shared context (its subagents' FAIL and PATCH entries, channel messages).
        // run_workflow: programs the lead writes, run by the workflow engine over this run's queue,
        // budget, coordination and scheduler (docs/workflows.md, "Programs the lead writes").
        // Background runs (run_workflow {background: true}, workflow_status) are tracked by
        // LeadPrograms; those the lead started before a crash start again here (their steps replay).
        if (delegation !== 'tasks') {
          const host = teamWorkflowHost(ctx, { dir, workspace, queue, budget, coordination, slots });
          leadPrograms = new LeadPrograms({
            runId: spec.runId,
            log,
            signal: ctx.signal,
            ...(spec.maxOpenWorkflows !== undefined ? { maxOpen: spec.maxOpenWorkflows } : {}),
            run: (js, id) => runCheckedProgram({ host }, js, id),
            notify: async (text) => {
              const sent = await ctx.coord.messages.send({
                runId: spec.runId,
                from: NOTICE_SENDER,
                to: LEAD_AGENT,
                text,
              });
              if (!sent.ok) throw new Error(sent.error);
            },
            limitHit: async (value, used) => {
              await emit('limit.hit', { limit: 'max_open_workflows', value, used }, LEAD_AGENT);
            },
          });
          await leadPrograms.load(history);
          workflowTools = [
            createRunWorkflowTool({ host, programs: leadPrograms }),
            createWorkflowStatusTool(leadPrograms),
          ];
        }
        const programs = workflowTools;
        const tasks = delegation === 'programs' ? [] : [createSubagentTool(team), createAssignTaskTool(team)];
        const tools = [
          ...base.tools,
          ...tasks,
          ...programs,
          createContextReadTool(ctx.coord, spec.runId, LEAD_AGENT),
          createContextUnfoldTool(ctx.coord, spec.runId),
        ];
        const maxSteps = spec.leadMaxSteps ?? spec.maxSteps;
        leadOutcome = await runAgentSession(
          {
            runId: spec.runId,
            agent: LEAD_AGENT,
            log,
            scrubber: ctx.scrubber,
            history,
            profile: 'lead',
            model: ctx.provider.model.id,
            task: spec.goal,
            tools: tools.map((t) => t.spec.name),
            maxSteps,
            system: () =>
              leadSystemPrompt({
                goal: spec.goal,
                verify: spec.verify,
                profiles: [...new Set([...PROFILE_NAMES, ...Object.keys(profiles)])],
                repository: renderRepoSummary(summariseRepo(worktree)),
                maxSubagentSteps: spec.subagentMaxSteps ?? DEFAULT_SUBAGENT_STEPS,
                sharedContext: true,
                delegation,
                ...(spec.maxOpenWorkflows !== undefined ? { maxOpenWorkflows: spec.maxOpenWorkflows } : {}),
              }),
          },
          {
            tools,
            provider: ctx.provider,
            budget,
            stream: spec.stream,
            signal: ctx.signal,
            beforeModelCall: ctx.injectorFor(LEAD_AGENT),
            // The lead's answer waits for its open background runs: their end messages reopen it.
            ...(leadPrograms ? { beforeFinish: leadFinish(leadPrograms) } : {}),
          },
        );
        // Runs still open when the lead stopped for another reason (step cap, budget) end first.
        await leadPrograms?.settleAll();
        if (spec.accept && leadOutcome.status === 'done' && !ctx.signal.aborted) {
          await runAcceptance({
            runId: spec.runId,
            log,
            runDir: dir,
            hubPath: workspace.hubPath,
            commands: [...(spec.verify ? [spec.verify] : []), spec.accept],
            baseCommit: spec.baseCommit,
            setup: spec.setup,
            env: ctx.commandEnv,
            sandbox: ctx.sandbox,
            rounds: spec.acceptRounds ?? DEFAULT_ACCEPT_ROUNDS,
            emit: (kind, data) => emit(kind, data, ACCEPTANCE_AGENT),
            emitFinished: (data) => emit('acceptance.finished', data),
            assign: (agent, prompt, callId) =>
              team.assign({ agent, prompt }, { callId, step: ACCEPT_LEAD_STEP }),
          });
        }
      } finally {
        // Nothing of a program may outlive the queue it lands through.
        await leadPrograms?.settleAll();
        ctx.signal.removeEventListener('abort', onEnd);
        coordination?.stop();
        await queue.close();
      }
    },

    finalize: () =>
      finalizeTeamRun(ctx, team, async () =>
        decideRunStatus({
          ends: [
            decidingOutcome(
              'the lead',
              leadOutcome ?? (await readLoggedOutcome(log, spec.runId, LEAD_AGENT)),
            ),
          ],
          endCause: ctx.endCause?.() ?? null,
          verify: await verifyOnMain(ctx, team),
          ...(spec.accept ? { acceptance: { command: spec.accept, result: await loggedAcceptance() } } : {}),
        }),
      ),
  };

  /**
   * Subagents driven by an external CLI (`--agent-cli`, a profile's `cli`): one CliHost for the run,
   * the proxy sending each one's calls to its own model (on a fleet: none here, the workers host them).
   */
  function subagentClis(
    budget: Awaited<ReturnType<typeof replayedBudget>>,
    modelOf: (agent: string) => string | undefined,
  ): SubagentCli | null {
    if (!runHasSubagentClis(spec)) return null;
    // On a fleet the worker that takes a task hosts its CLI (worker/worker-run.ts), not this process.
    if (ctx.fleet) return null;
    const { gate, upstream } = ctx;
    if (!gate || !upstream) throw new Error("external agent CLIs need the run's rate gate and models");
    const access = agentCliAccess({
      spec,
      gate,
      upstream,
      runFolder: dir,
      modelOf: (agent) => modelOf(agent) ?? spec.model,
    });
    const host = new CliHost(access, {
      runId: spec.runId,
      deadlineAt: spec.deadlineAt,
      log,
      budget,
      scrubber: ctx.scrubber,
    });
    return {
      choiceFor: (subagent) => subagentCliChoice(spec, subagent),
      host,
      sandbox: ctx.sandbox,
      baseEnv: ctx.commandEnv,
    };
  }

  /**
   * Before the lead finishes: waits for its open background runs, then gives it its unread direct
   * messages (their end messages among them); any → the lead goes on instead of finishing.
   */
  function leadFinish(programs: LeadPrograms): () => Promise<Message[]> {
    const inject = ctx.injectorFor(LEAD_AGENT);
    return async () => {
      await programs.settleAll();
      if (ctx.signal.aborted) return [];
      return inject();
    };
  }

  /** Starts of the agents of the lead's programs before a resume (the team counts its subagents). */
  async function programStarts(team: Team): Promise<Record<string, number>> {
    const starts = await startsSoFar(log, spec.runId);
    for (const agent of [LEAD_AGENT, ...team.subagents.keys()]) delete starts[agent];
    return starts;
  }

  /** A task on a fleet worker: its outcome, or a failed one saying why it did not run. */
  async function runOnFleet(
    fleet: FleetOwner,
    agent: string,
    task: string,
  ): Promise<{ outcome: AgentOutcome; steps: number }> {
    const end = await fleet.runSession(agent, task);
    return end.started
      ? { outcome: end.outcome, steps: end.steps ?? end.outcome.steps }
      : failedTask(`the fleet did not run ${task}: ${end.error}`);
  }

  async function loggedAcceptance(): Promise<{ round: number; passed: boolean } | null> {
    const rounds = await log.read(spec.runId, {
      kinds: ['acceptance.finished'],
    });
    return rounds.at(-1)?.data ?? null;
  }
}
