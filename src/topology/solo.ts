/**
 * The solo topology: a team of one. The coder `solo` works in its own checkout of the run's
 * RunWorkspace like any team member; at the end its work lands on hub main through the integration
 * queue (checked by `--merge-verify` when given) and the run's verify command checks main, exactly
 * as for a team. Three idempotent phases (each may be re-run after a crash; each checks the log):
 *   prepare  — hub, the agent's checkout, setup command
 *   work     — the agent loop (replays its logged steps on recovery)
 *   finalize — commit, land on main, verify main, fetch main as colony/<run-id>, finish the run
 */
import { existsSync } from 'node:fs';
import type { AgentOutcome } from '../agent/loop.js';
import { toolsForProfile } from '../agent/profiles.js';
import { summariseRepo } from '../agent/repo-summary.js';
import { buildSystemPrompt } from '../agent/system-prompt.js';
import { isKind } from '../core/events.js';
import { readLoggedOutcome } from '../run/agent-end.js';
import type { RunPhases } from '../run/durable.js';
import { agentBranchName, SOLO_AGENT } from '../run/run-spec.js';
import type { EventLog } from '../store/types.js';
import { readHubMain } from '../workspace/hub/main.js';
import { isAncestor, revParse } from '../workspace/integration/hub-git.js';
import { IntegrationQueue } from '../workspace/integration/index.js';
import { commitAll } from '../workspace/worktree.js';
import type { RunContext, RunOutcome, Topology } from './context.js';
import { runAgentSession } from './session/agent-session.js';
import { decideRunStatus, decidingOutcome } from './session/run-verdict.js';
import {
  finalizeTeamRun,
  mergeApproval,
  openTeamRun,
  replayedBudget,
  type TeamRun,
  verifyOnMain,
} from './team/team-run.js';

export const soloTopology: Topology = { name: 'solo', phases: soloPhases };

/** How the agent's work reached hub main at the end of the run. */
type Landing = { landed: true } | { landed: false; reason: string };

export function soloPhases(ctx: RunContext): RunPhases<RunOutcome> {
  const { spec, log } = ctx;
  const team = openTeamRun(ctx);
  const { workspace } = team;
  let agentOutcome: AgentOutcome | null = null;

  return {
    async prepare() {
      const opened = await workspace.open();
      if (!opened.ok) throw new Error(opened.error);
      // A failed setup is logged (setup.finished) and reported by finalize, and so is a run that ended
      // (stop, deadline) before its agent's repository was ready; anything else is fatal.
      const ws = await workspace.forAgent(SOLO_AGENT);
      if (!ws.ok && !ctx.signal.aborted && !(await failedSetup(log, spec.runId))) throw new Error(ws.error);
    },

    async work() {
      if (await failedSetup(log, spec.runId)) return;
      const ws = await workspace.forAgent(SOLO_AGENT);
      if (!ws.ok && ctx.signal.aborted) return;
      if (!ws.ok) throw new Error(ws.error);
      const { worktree } = ws.value;
      const history = await log.read(spec.runId, { agent: SOLO_AGENT });
      const tools = toolsForProfile(spec.profile, worktree, {
        bash: { baseEnv: ctx.commandEnv, defaultTimeoutS: spec.bashTimeoutS, sandbox: ctx.sandbox },
      });
      if (!tools.ok) throw new Error(tools.error);
      const toolNames = tools.tools.map((t) => t.spec.name);
      const budget = await replayedBudget(ctx);
      agentOutcome = await runAgentSession(
        {
          runId: spec.runId,
          agent: SOLO_AGENT,
          log,
          scrubber: ctx.scrubber,
          history,
          profile: spec.profile,
          model: ctx.provider.model.id,
          task: spec.goal,
          tools: toolNames,
          maxSteps: spec.maxSteps,
          system: () =>
            buildSystemPrompt({
              profile: spec.profile,
              repo: summariseRepo(worktree),
              verify: spec.verify,
              toolNames,
            }),
        },
        {
          tools: tools.tools,
          provider: ctx.provider,
          budget,
          stream: spec.stream,
          signal: ctx.signal,
          beforeModelCall: ctx.injectorFor(SOLO_AGENT),
        },
      );
    },

    finalize: () =>
      finalizeTeamRun(ctx, team, async () => {
        const setup = await failedSetup(log, spec.runId);
        if (setup) return { status: 'failed', reason: `setup command failed (exit ${setup})` };
        const landing = await landWork(ctx, team);
        const verify = await verifyOnMain(ctx, team);
        const outcome = agentOutcome ?? (await readLoggedOutcome(log, spec.runId, SOLO_AGENT));
        return decideRunStatus({
          ends: [decidingOutcome('the agent', outcome)],
          endCause: ctx.endCause(),
          verify,
          landing,
        });
      }),
  };
}

/** The exit code of the agent's failed setup command, or null when setup passed or there was none. */
async function failedSetup(log: EventLog, runId: string): Promise<number | null> {
  const [setup] = await log.read(runId, { agent: SOLO_AGENT, kinds: ['setup.finished'], limit: 1 });
  return setup && setup.data.exitCode !== 0 ? setup.data.exitCode : null;
}

/**
 * Commits what the agent left uncommitted and lands its branch on hub main through the integration
 * queue, like any team member's merge request. After a crash inside finalize the checkout may be
 * gone (RunWorkspace.finish removes it) and the branch already on main: nothing is landed twice.
 */
async function landWork(ctx: RunContext, team: TeamRun): Promise<Landing> {
  const { spec, log } = ctx;
  const { workspace } = team;
  const branch = agentBranchName(SOLO_AGENT);
  const worktree = workspace.worktreePath(SOLO_AGENT);
  if (existsSync(worktree)) {
    const committed = await commitAll(worktree, `colony ${spec.runId}: ${firstLine(spec.goal)}`);
    if (!committed.ok) throw new Error(committed.error);
    if (committed.status === 'committed') {
      await team.emit(
        'commit.created',
        { branch, commit: committed.commit, files: committed.files.length },
        SOLO_AGENT,
      );
    }
  }
  // After a crash inside finalize the repository may be gone: its branch was published first.
  const published = existsSync(worktree) ? await workspace.publish(SOLO_AGENT) : null;
  if (published && !published.ok) throw new Error(published.error);
  const tip = await revParse(workspace.hubPath, `refs/heads/${branch}^{commit}`);
  if (!tip) return { landed: false, reason: `the agent's branch ${branch} is missing from the hub` };
  const main = await readHubMain(workspace.hubPath);
  if (main && (await isAncestor(workspace.hubPath, tip, main))) return { landed: true };
  if (await landedBefore(log, spec.runId, tip)) return { landed: true };
  const queue = new IntegrationQueue({
    runId: spec.runId,
    hubPath: workspace.hubPath,
    workRoot: team.dir,
    baseCommit: spec.baseCommit,
    verify: spec.mergeVerify,
    setup: spec.setup,
    log,
    // A team of one has no shared context to post to and no one else to tell.
    hooks: { postEntry: async () => {}, sendDirect: async () => {} },
    env: ctx.commandEnv,
    sandbox: ctx.sandbox,
    ...mergeApproval(ctx),
  });
  try {
    const result = await queue.submit({ agent: SOLO_AGENT, branch, note: firstLine(spec.goal) });
    if (result.status === 'landed') return { landed: true };
    if (result.status === 'error') throw new Error(result.error);
    return { landed: false, reason: result.output.trim().split('\n').at(-1) ?? result.reason };
  } finally {
    await queue.close();
  }
}

/** Whether a merge request of this commit already landed (a crash came between landing and the end). */
async function landedBefore(log: EventLog, runId: string, commit: string): Promise<boolean> {
  const events = await log.read(runId, { kinds: ['merge.requested', 'merge.landed'] });
  const requested = new Set(
    events.filter(isKind('merge.requested')).flatMap((e) => (e.data.commit === commit ? [e.data.mr] : [])),
  );
  return events.filter(isKind('merge.landed')).some((e) => requested.has(e.data.mr));
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 72 ? `${line.slice(0, 69)}…` : line;
}
