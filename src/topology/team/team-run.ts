/**
 * What every team topology (peers, orchestrated, workflow) shares around its agents: the run folder,
 * a scrubbing `emit` for run-level events, the RunWorkspace (hub + lazy worktrees), and the end of
 * `finalize` — a run that already finished keeps its logged end; otherwise the topology decides
 * (verifying hub main first if it wants), the result branch is fetched and the end is logged.
 */
import { Budget } from '../../agent/budget.js';
import { type EventKind, type EventPayloads, eventOf, type StoredEvent } from '../../core/events.js';
import { runDir } from '../../core/home.js';
import { loggedSpend } from '../../run/logged-spend.js';
import { resultBranchName } from '../../run/run-spec.js';
import type { EventLog } from '../../store/types.js';
import type { IntegrationQueueOptions } from '../../workspace/integration/index.js';
import { guardMain, movedMainWarning } from '../../workspace/integration/main-guard.js';
import { RunWorkspace } from '../../workspace/run-workspace.js';
import type { RunContext, RunOutcome } from '../context.js';
import { type MainVerifier, mainVerifier } from './verify-main.js';

export type Emit = <K extends EventKind>(
  kind: K,
  data: EventPayloads[K],
  agent?: string | null,
) => Promise<StoredEvent<K>>;

export interface TeamRun {
  dir: string;
  workspace: RunWorkspace;
  emit: Emit;
}

/** `workspaceLog`: the log the workspace appends agents' `workspace.ready`/`setup.finished` to. */
export function openTeamRun(ctx: RunContext, workspaceLog: EventLog = ctx.log): TeamRun {
  const { spec } = ctx;
  const dir = runDir(ctx.home, spec.runId);
  const emit: Emit = (kind, data, agent = null) =>
    ctx.log.append(eventOf(spec.runId, agent, kind, ctx.scrubber.scrubValue(data)));
  const workspace = new RunWorkspace({
    runId: spec.runId,
    runDir: dir,
    userRepo: spec.repo,
    baseCommit: spec.baseCommit,
    log: workspaceLog,
    setup: spec.setup,
    env: ctx.commandEnv,
    sandbox: ctx.sandbox,
    signal: ctx.signal,
  });
  // A free-form claim conflict suggests base-tree paths nobody has claimed (coord/nearby-paths.ts).
  ctx.coord.claims.providePaths(spec.runId, () => workspace.basePaths());
  return { dir, workspace, emit };
}

/**
 * The integration queue's approval for the run: with `approveMerges`, a person decides every verified
 * merge request (`colony approve` / `colony reject`, the dashboard); otherwise none. Peers are told
 * their request waits for approval and carry on; the decision reaches them as a direct message, and
 * the queue stays open for decisions until the run ends. An orchestrated subagent's task or a workflow
 * step ends with its merge and nothing would tell it later, so its merge_request waits for the decision.
 */
export function mergeApproval(ctx: RunContext): Pick<IntegrationQueueOptions, 'approval' | 'signal'> {
  if (!ctx.spec.approveMerges) return {};
  return ctx.spec.topology === 'peers' ? { approval: 'human', signal: ctx.signal } : { approval: 'manual' };
}

/** The run's verify command on hub main (each commit verified once per run), or null without one. */
export function hubMainVerifier(ctx: RunContext, run: TeamRun): MainVerifier | null {
  const { spec } = ctx;
  if (!spec.verify) return null;
  return mainVerifier({
    runId: spec.runId,
    runDir: run.dir,
    hubPath: run.workspace.hubPath,
    log: ctx.log,
    verify: spec.verify,
    baseCommit: spec.baseCommit,
    setup: spec.setup,
    env: ctx.commandEnv,
    sandbox: ctx.sandbox,
    emit: (kind, data) => run.emit(kind, data),
  });
}

/** The verify command's result on hub main, as the run's verdict takes it (null: no verify command). */
export async function verifyOnMain(
  ctx: RunContext,
  run: TeamRun,
  verifier = hubMainVerifier(ctx, run),
): Promise<{ command: string; passed: boolean } | null> {
  if (!verifier || !ctx.spec.verify) return null;
  return { command: ctx.spec.verify, passed: (await verifier.verify()).passed };
}

export async function finalizeTeamRun(
  ctx: RunContext,
  run: TeamRun,
  decide: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  const { spec } = ctx;
  const [previous] = await ctx.log.read(spec.runId, { kinds: ['run.finished'], limit: 1 });
  if (previous) return { status: previous.data.status, reason: previous.data.reason };
  await guardHubMain(ctx, run);
  const { status, reason } = await decide();
  const fetched = await run.workspace.finish();
  if (!fetched.ok) throw new Error(fetched.error);
  // Nothing landed on main: no branch was made in the user's repository, and the run says so.
  const resultBranch = fetched.ref ? resultBranchName(spec.runId) : null;
  if (resultBranch)
    await run.emit('result.fetched', { branch: resultBranch, commit: fetched.commit, repo: spec.repo });
  await run.emit('run.finished', { status, reason, resultBranch });
  await ctx.setRunStatus(status);
  return { status, reason };
}

/**
 * The run's budget with every logged model call counted (so a resumed run keeps its spend). A fleet
 * run's agents are in several processes: each reads the run's spend from the log before a call.
 */
export async function replayedBudget(ctx: Pick<RunContext, 'spec' | 'log'>): Promise<Budget> {
  const { spec } = ctx;
  const limits = { usd: spec.budgetUsd, tokens: spec.budgetTokens };
  const budget = new Budget(limits, spec.fleet ? loggedSpend(ctx.log, spec.runId) : null);
  for (const event of await ctx.log.read(spec.runId, { kinds: ['model.response'] })) {
    budget.record(event.data.turn.usage, event.data.turn.costUsd);
  }
  return budget;
}

/** Puts hub main back where the integration queue last left it, if anything else moved it. */
async function guardHubMain(ctx: RunContext, run: TeamRun): Promise<void> {
  const landed = await ctx.log.read(ctx.spec.runId, { kinds: ['merge.landed'] });
  const expected = landed.at(-1)?.data.commit ?? ctx.spec.baseCommit;
  const check = await guardMain(run.workspace.hubPath, expected);
  if (!check.ok) throw new Error(check.error);
  if (check.value.moved) await run.emit('warning', { message: movedMainWarning(check.value) });
}
