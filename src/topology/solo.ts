/**
 * The solo topology: one coder agent in its own worktree. Three idempotent phases (each may be
 * re-run after a crash; each checks the log before acting):
 *   prepare  — hub, worktree, setup command
 *   work     — the agent loop (replays its logged steps on recovery)
 *   finalize — commit, verify, fetch the result branch into the user's repo, finish the run
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Budget } from '../agent/budget.js';
import { type AgentOutcome, runAgent } from '../agent/loop.js';
import { toolsForProfile } from '../agent/profiles.js';
import { summariseRepo } from '../agent/repo-summary.js';
import { buildSystemPrompt } from '../agent/system-prompt.js';
import {
  type EventKind,
  type EventPayloads,
  eventOf,
  type FinalRunStatus,
  type StoredEvent,
} from '../core/events.js';
import { runDir } from '../core/home.js';
import type { Scrubber } from '../core/secrets.js';
import type { Message, Provider } from '../model/types.js';
import type { RunPhases } from '../run/durable.js';
import type { EndCause } from '../run/run-control.js';
import { agentBranchName, type RunSpec, resultBranchName, SOLO_AGENT } from '../run/run-spec.js';
import { type Sandbox, setupSandbox } from '../sandbox/index.js';
import type { EventLog } from '../store/types.js';
import { createHub } from '../workspace/hub.js';
import { fetchResult } from '../workspace/result.js';
import { runShellCommand } from '../workspace/shell-command.js';
import { addWorktree, commitAll, removeWorktree } from '../workspace/worktree.js';

export interface SoloContext {
  spec: RunSpec;
  home: string;
  log: EventLog;
  provider: Provider;
  scrubber: Scrubber;
  signal: AbortSignal;
  /** Why the run was ended early (stop, deadline, goal met), if it was. */
  endCause?: () => EndCause | null;
  /** Ends the run early with this cause (peers: the goal is met); agents see the abort signal. */
  endRun?: (cause: EndCause) => void;
  /** Environment for setup/verify commands (secrets removed). */
  commandEnv: NodeJS.ProcessEnv;
  /**
   * Where agents' commands, setup and checks run (src/sandbox/; setup gets the network): null when
   * the run is not contained (`--sandbox off`).
   */
  sandbox: Sandbox | null;
  /**
   * The direct-message injector of one agent of this run (the loop's `beforeModelCall`): every agent
   * of every topology gets it, so `colony send --to AGENT` reaches any of them.
   */
  injectorFor(agent: string): () => Promise<Message[]>;
  setRunStatus(status: FinalRunStatus): Promise<void>;
}

export interface SoloResult {
  status: FinalRunStatus;
  reason: string;
}

export function workspacePaths(home: string, runId: string) {
  const dir = runDir(home, runId);
  return { hub: join(dir, 'hub.git'), worktree: join(dir, 'worktrees', SOLO_AGENT) };
}

export function soloPhases(ctx: SoloContext): RunPhases<SoloResult> {
  const { spec, log } = ctx;
  const paths = workspacePaths(ctx.home, spec.runId);
  const branch = agentBranchName(SOLO_AGENT);
  const emit = <K extends EventKind>(kind: K, data: EventPayloads[K], agent: string | null = null) =>
    log.append(eventOf(spec.runId, agent, kind, ctx.scrubber.scrubValue(data)));
  const logged = async (kind: EventKind) => (await log.read(spec.runId, { kinds: [kind] })).length > 0;
  let agentOutcome: AgentOutcome | null = null;

  return {
    async prepare() {
      const hub = await createHub(paths.hub, spec.repo, spec.baseCommit);
      if (!hub.ok) throw new Error(hub.error);
      const worktree = await addWorktree(paths.hub, paths.worktree, branch, spec.baseCommit);
      if (!worktree.ok) throw new Error(worktree.error);
      if (!(await logged('workspace.ready'))) {
        await emit('workspace.ready', {
          hub: paths.hub,
          worktree: paths.worktree,
          branch,
          baseCommit: spec.baseCommit,
        });
      }
      if (spec.setup && !(await logged('setup.finished'))) {
        const result = await runShellCommand(spec.setup, paths.worktree, {
          env: ctx.commandEnv,
          sandbox: setupSandbox(ctx.sandbox),
        });
        await emit('setup.finished', {
          command: spec.setup,
          exitCode: result.exitCode,
          output: result.output,
          durationMs: result.durationMs,
        });
      }
    },

    async work() {
      const setup = (await log.read(spec.runId, { kinds: ['setup.finished'] }))[0] as
        | StoredEvent<'setup.finished'>
        | undefined;
      if (setup && setup.data.exitCode !== 0) return; // finalize reports the failed setup
      const history = await log.read(spec.runId, { agent: SOLO_AGENT });
      const started = history.find((event) => event.kind === 'agent.started') as
        | StoredEvent<'agent.started'>
        | undefined;
      const tools = toolsForProfile(spec.profile, paths.worktree, {
        bash: { baseEnv: ctx.commandEnv, defaultTimeoutS: spec.bashTimeoutS, sandbox: ctx.sandbox },
      });
      if (!tools.ok) throw new Error(tools.error);
      let system = started?.data.system;
      if (!system) {
        system = ctx.scrubber.scrub(
          buildSystemPrompt({
            profile: spec.profile,
            repo: summariseRepo(paths.worktree),
            verify: spec.verify,
            toolNames: tools.tools.map((t) => t.spec.name),
          }),
        );
        await emit(
          'agent.started',
          {
            profile: spec.profile,
            model: ctx.provider.model.id,
            task: spec.goal,
            system,
            tools: tools.tools.map((t) => t.spec.name),
            maxSteps: spec.maxSteps,
          },
          SOLO_AGENT,
        );
      }
      const budget = new Budget({ usd: spec.budgetUsd, tokens: spec.budgetTokens });
      for (const event of await log.read(spec.runId, { kinds: ['model.response'] })) {
        const { turn } = event.data;
        budget.record(turn.usage, turn.costUsd);
      }
      agentOutcome = await runAgent(
        {
          runId: spec.runId,
          name: SOLO_AGENT,
          profile: spec.profile,
          task: spec.goal,
          system,
          tools: tools.tools,
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
          beforeModelCall: ctx.injectorFor(SOLO_AGENT),
        },
      );
    },

    async finalize() {
      const previous = (await log.read(spec.runId, { kinds: ['run.finished'] }))[0] as
        | StoredEvent<'run.finished'>
        | undefined;
      if (previous) return { status: previous.data.status, reason: previous.data.reason };

      // After a crash inside finalize the worktree may already be gone (removed last, below): its
      // commit and verify result are then in the hub and the log.
      const worktreeExists = existsSync(paths.worktree);
      if (worktreeExists) {
        const committed = await commitAll(paths.worktree, `colony ${spec.runId}: ${firstLine(spec.goal)}`);
        if (!committed.ok) throw new Error(committed.error);
        if (committed.status === 'committed') {
          await emit(
            'commit.created',
            { branch, commit: committed.commit, files: committed.files.length },
            SOLO_AGENT,
          );
        }
      }

      let verifyPassed: boolean | null = null;
      if (spec.verify && worktreeExists) {
        const result = await runShellCommand(spec.verify, paths.worktree, {
          env: ctx.commandEnv,
          sandbox: ctx.sandbox,
        });
        verifyPassed = result.exitCode === 0;
        await emit('verify.finished', {
          command: spec.verify,
          exitCode: result.exitCode,
          passed: verifyPassed,
          output: result.output,
          durationMs: result.durationMs,
        });
      } else if (spec.verify) {
        const logged = (await log.read(spec.runId, { kinds: ['verify.finished'] })).at(-1) as
          | StoredEvent<'verify.finished'>
          | undefined;
        verifyPassed = logged?.data.passed ?? false;
      }

      const fetched = await fetchResult(spec.repo, paths.hub, branch, resultBranchName(spec.runId));
      if (!fetched.ok) throw new Error(fetched.error);
      await emit('result.fetched', {
        branch: resultBranchName(spec.runId),
        commit: fetched.commit,
        repo: spec.repo,
      });

      // The worktree goes; its branch stays in the hub and the result is in the user's repository.
      const removed = await removeWorktree(paths.hub, paths.worktree);
      if (!removed.ok) throw new Error(removed.error);

      const { status, reason } = await decideStatus(
        log,
        spec,
        agentOutcome,
        verifyPassed,
        ctx.endCause?.() ?? null,
      );
      await emit('run.finished', { status, reason, resultBranch: resultBranchName(spec.runId) });
      await ctx.setRunStatus(status);
      return { status, reason };
    },
  };
}

async function decideStatus(
  log: EventLog,
  spec: RunSpec,
  outcome: AgentOutcome | null,
  verifyPassed: boolean | null,
  endCause: EndCause | null,
): Promise<SoloResult> {
  const setup = (await log.read(spec.runId, { kinds: ['setup.finished'] }))[0] as
    | StoredEvent<'setup.finished'>
    | undefined;
  if (setup && setup.data.exitCode !== 0)
    return { status: 'failed', reason: `setup command failed (exit ${setup.data.exitCode})` };
  // After a crash inside finalize, the agent's outcome comes from the log.
  const finished = outcome
    ? { status: outcome.status, reason: outcome.reason, stopReason: outcome.stopReason }
    : await loggedOutcome(log, spec.runId);
  if (!finished) return { status: 'failed', reason: 'the agent did not finish' };
  if (finished.stopReason === 'budget_usd' || finished.stopReason === 'budget_tokens') {
    return { status: 'budget_exhausted', reason: finished.reason };
  }
  if (finished.stopReason === 'aborted') return endCause ?? { status: 'stopped', reason: finished.reason };
  if (finished.status !== 'done') return { status: 'failed', reason: finished.reason };
  if (verifyPassed === false) return { status: 'failed', reason: `verify command failed: ${spec.verify}` };
  return {
    status: 'succeeded',
    reason: verifyPassed ? 'agent finished and verify passed' : 'agent finished',
  };
}

async function loggedOutcome(log: EventLog, runId: string) {
  const finished = (await log.read(runId, { kinds: ['agent.finished'] }))[0] as
    | StoredEvent<'agent.finished'>
    | undefined;
  return finished
    ? { status: finished.data.status, reason: finished.data.reason, stopReason: finished.data.stopReason }
    : null;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 72 ? `${line.slice(0, 69)}…` : line;
}
