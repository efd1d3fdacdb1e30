/**
 * The workflow engine's host in a team run (src/workflow/host.ts): how a step's attempt runs — its
 * agent started through the one agent session, read-only agents on a shared checkout of hub main as
 * the step starts, writers in their own worktree landing through the run's integration queue — and
 * how a sync point runs on hub main. Used by the workflow topology (its one program) and by the
 * orchestrated lead's run_workflow (each program the lead writes), over the same queue, budget,
 * coordination and scheduler as the rest of the run.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Budget, type BudgetHit, type BudgetLimits } from '../../agent/budget.js';
import { coordinationOf, resolveProfile, TEAM_COORDINATION, toolsForProfile } from '../../agent/profiles.js';
import { summariseRepo } from '../../agent/repo-summary.js';
import { buildSystemPrompt } from '../../agent/system-prompt.js';
import { type AgentCoordination, coordinationPrompt } from '../../coord/index.js';
import type { Result } from '../../lang/result.js';
import type { Provider, Usage } from '../../model/types.js';
import type { EventLog } from '../../store/types.js';
import type {
  AgentSlots,
  AttemptRequest,
  AttemptResult,
  CommandOutcome,
  WorkflowHost,
} from '../../workflow/index.js';
import { git } from '../../workspace/git/git.js';
import { HUB_MAIN } from '../../workspace/hub/hub.js';
import { readHubMain } from '../../workspace/hub/main.js';
import type { IntegrationQueue } from '../../workspace/integration/index.js';
import { checkoutForCheck } from '../../workspace/main-checkout.js';
import type { RunWorkspace } from '../../workspace/run-workspace.js';
import { runShellCommand } from '../../workspace/shell-command.js';
import { commitAll } from '../../workspace/worktree.js';
import type { RunContext } from '../context.js';
import { runAgentSession } from '../session/agent-session.js';

/** Checkout folders beside the agents' worktrees (RunWorkspace.finish removes them all). */
const READONLY_CHECKOUT = '.readonly';
const MAIN_CHECKOUT = '.main-checkout';
const WRITER_PROFILES = new Set(['coder']);

export interface TeamWorkflowHostOptions {
  /** The run's folder (worktrees/ below it). */
  dir: string;
  workspace: RunWorkspace;
  queue: IntegrationQueue;
  /** The run's budget (every step's spend counts against it). */
  budget: Budget;
  /** The team's shared context and claims (claims are leases for one attempt). */
  coordination: AgentCoordination;
  /** Agent slots: the run's scheduler. */
  slots: AgentSlots;
}

export function teamWorkflowHost(ctx: RunContext, options: TeamWorkflowHostOptions): WorkflowHost {
  const { spec, log } = ctx;
  const { dir, workspace, queue, budget, coordination } = options;
  let mainLock: Promise<unknown> = Promise.resolve();
  /** Runs `command` in a fresh detached checkout of hub main (one at a time: they share the folder). */
  const runOnMain = (command: string): Promise<CommandOutcome> => {
    const next = mainLock.then(async () => {
      const checkout = join(dir, 'worktrees', MAIN_CHECKOUT);
      const prepared = await checkoutForCheck({
        hubPath: workspace.hubPath,
        checkout,
        commit: HUB_MAIN,
        baseCommit: spec.baseCommit,
        setup: spec.setup,
        env: ctx.commandEnv,
        sandbox: ctx.sandbox,
      });
      if (prepared.kind === 'error') return { exitCode: null, output: prepared.error, durationMs: 0 };
      if (prepared.kind === 'setup_failed')
        return { ...prepared.setup, output: `setup failed before the command:\n${prepared.setup.output}` };
      return runShellCommand(command, checkout, { env: ctx.commandEnv, sandbox: ctx.sandbox });
    });
    mainLock = next.catch(() => {});
    return next;
  };

  // A read-only step reads hub main as it is when the step starts (landed work included), in one
  // shared detached checkout per main commit.
  const readonlyRoots = new Map<string, Promise<string>>();
  const readonlyRoot = async (): Promise<string> => {
    const main = (await readHubMain(workspace.hubPath)) ?? spec.baseCommit;
    let root = readonlyRoots.get(main);
    if (!root) {
      root = readonlyCheckout(join(dir, 'worktrees', `${READONLY_CHECKOUT}-${main.slice(0, 12)}`), main);
      root.catch(() => readonlyRoots.delete(main));
      readonlyRoots.set(main, root);
    }
    return root;
  };
  // Made fresh once per process and commit (a folder left by a crashed process is removed first), so
  // Colony never runs git inside a checkout an agent has worked in.
  const readonlyCheckout = async (checkout: string, commit: string): Promise<string> => {
    await rm(checkout, { recursive: true, force: true });
    await git(['worktree', 'prune'], { cwd: workspace.hubPath });
    const added = await git(['worktree', 'add', '--quiet', '--detach', checkout, commit], {
      cwd: workspace.hubPath,
    });
    if (!added.ok) throw new Error(`could not check out hub main (${commit}): ${added.stderr}`);
    return checkout;
  };
  const summaries = new Map<string, ReturnType<typeof summariseRepo>>();

  const runAttempt = async (request: AttemptRequest): Promise<AttemptResult> => {
    const resolved = resolveProfile(request.profile, spec.profiles ?? {});
    if (!resolved.ok) return { ok: false, error: resolved.error };
    const profile = resolved.profile;
    const provider = ctx.providerForModel(profile.model);
    if (!provider.ok) return { ok: false, error: `profile "${profile.name}": ${provider.error}` };
    const capabilities = coordinationOf(profile, TEAM_COORDINATION);
    // A writer's claims are released once its work has landed (or was rejected): after `land`.
    return coordination.hold(
      request.agent,
      capabilities,
      () => attempt(request, profile.base, provider.provider, capabilities),
      { outcome: 'workflow attempt ended' },
    );
  };

  const attempt = async (
    request: AttemptRequest,
    base: string,
    provider: Provider,
    capabilities: ReturnType<typeof coordinationOf>,
  ): Promise<AttemptResult> => {
    const { agent } = request;
    const writer = WRITER_PROFILES.has(base);
    let root: string;
    let branch: string | null = null;
    let publish: (() => Promise<Result<string>>) | null = null;
    if (writer) {
      const ws = await workspace.forAgent(agent);
      if (!ws.ok) return { ok: false, error: ws.error };
      root = ws.value.worktree;
      branch = ws.value.branch;
      publish = ws.value.publish;
    } else {
      root = await readonlyRoot();
    }
    const own = toolsForProfile(base, root, {
      bash: { baseEnv: ctx.commandEnv, defaultTimeoutS: spec.bashTimeoutS, sandbox: ctx.sandbox },
    });
    if (!own.ok) return { ok: false, error: own.error };
    const tools = { tools: [...own.tools, ...coordination.tools(agent, capabilities)] };
    const history = await log.read(spec.runId, { agent });
    const toolNames = tools.tools.map((t) => t.spec.name);
    const stepBudget = request.budget
      ? await stepBudgetFor(log, spec.runId, agent, request.budget, budget)
      : budget;
    const end = await runAgentSession(
      {
        runId: spec.runId,
        agent,
        log,
        scrubber: ctx.scrubber,
        history,
        profile: request.profile,
        model: provider.model.id,
        task: request.task,
        tools: toolNames,
        maxSteps: request.maxSteps,
        system: () => {
          let repo = writer ? undefined : summaries.get(root);
          if (!repo) {
            repo = summariseRepo(root);
            if (!writer) summaries.set(root, repo);
          }
          const prompt = [
            buildSystemPrompt({
              profile: base,
              repo,
              verify: writer ? (spec.mergeVerify ?? spec.verify) : undefined,
              toolNames,
            }),
            coordinationPrompt(capabilities, writer ? 'you finish and your work has landed' : 'you finish'),
            request.instructions ? `# Instructions\n${request.instructions}` : '',
          ];
          return prompt.filter((part) => part !== '').join('\n\n');
        },
      },
      {
        tools: tools.tools,
        provider,
        budget: stepBudget,
        stream: spec.stream,
        signal: request.signal,
        beforeModelCall: ctx.injectorFor(agent),
      },
    );
    const outcome = {
      status: end.status,
      stopReason: end.stopReason,
      reason: end.reason,
      steps: end.steps,
      finalText: end.finalText,
    };
    if (!writer || !branch || !publish || end.status !== 'done') return { ok: true, outcome };
    return {
      ok: true,
      outcome: { ...outcome, merge: await land(agent, branch, root, publish, end.finalText) },
    };
  };

  /** Commits a writer's work and lands it through the queue (a merge already decided is read from the log). */
  const land = async (
    agent: string,
    branch: string,
    worktree: string,
    publish: () => Promise<Result<string>>,
    note: string,
  ) => {
    const decided = await loggedMerge(log, spec.runId, agent);
    if (decided) return decided;
    const message = firstLine(note) || `${agent}: changes`;
    const committed = await commitAll(worktree, message);
    if (!committed.ok) return { status: 'error' as const, detail: committed.error };
    const published = await publish();
    if (!published.ok) return { status: 'error' as const, detail: published.error };
    const result = await queue.submit({ agent, branch, note: message });
    if (result.status === 'landed')
      return { status: 'landed' as const, detail: `landed as ${result.commit}` };
    if (result.status === 'rejected')
      return {
        status: result.reason === 'nothing_to_merge' ? ('nothing_to_merge' as const) : ('rejected' as const),
        detail: `merge request ${result.mr} rejected (${result.reason}): ${result.output.slice(-500)}`,
      };
    return { status: 'error' as const, detail: result.error };
  };

  return {
    runId: spec.runId,
    log,
    signal: ctx.signal,
    slots: options.slots,
    defaultMaxSteps: spec.maxSteps,
    runAttempt,
    runOnMain,
    scrub: (value) => ctx.scrubber.scrubValue(value),
  };
}

/** A step's own limits on top of the run's: a budget that records into both and stops at either. */
class StepBudget extends Budget {
  constructor(
    limits: BudgetLimits,
    private readonly run: Budget,
  ) {
    super(limits);
  }

  /** Spend from before a resume: the run's budget counted it already. */
  seed(usage: Usage, costUsd: number | null): void {
    super.record(usage, costUsd);
  }

  override record(usage: Usage, costUsd: number | null): void {
    super.record(usage, costUsd);
    this.run.record(usage, costUsd);
  }

  override get readsLog(): boolean {
    return this.run.readsLog;
  }

  override async check(inputTokens: number, inputPricePerM: number | null): Promise<BudgetHit | null> {
    return (
      super.wouldExceed(inputTokens, inputPricePerM) ?? (await this.run.check(inputTokens, inputPricePerM))
    );
  }

  override wouldExceed(inputTokens: number, inputPricePerM: number | null): BudgetHit | null {
    return (
      super.wouldExceed(inputTokens, inputPricePerM) ?? this.run.wouldExceed(inputTokens, inputPricePerM)
    );
  }
}

async function stepBudgetFor(
  log: EventLog,
  runId: string,
  agent: string,
  limits: BudgetLimits,
  run: Budget,
): Promise<Budget> {
  const budget = new StepBudget(limits, run);
  for (const event of await log.read(runId, { agent, kinds: ['model.response'] })) {
    const { turn } = event.data;
    budget.seed(turn.usage, turn.costUsd);
  }
  return budget;
}

/** Starts per agent before a resume (each attempt agent starts once per process that runs it). */
export async function startsSoFar(log: EventLog, runId: string): Promise<Record<string, number>> {
  const starts: Record<string, number> = {};
  for (const event of await log.read(runId, { kinds: ['agent.started'] }))
    if (event.agent) starts[event.agent] = (starts[event.agent] ?? 0) + 1;
  return starts;
}

/** The outcome of the agent's merge request, if the log already has it. */
async function loggedMerge(log: EventLog, runId: string, agent: string) {
  const events = await log.read(runId, { agent, kinds: ['merge.landed', 'merge.rejected'] });
  const last = events.at(-1);
  if (!last) return null;
  if (last.kind === 'merge.landed')
    return {
      status: 'landed' as const,
      detail: `landed as ${last.data.commit}`,
    };
  const data = last.data;
  return {
    status: data.reason === 'nothing_to_merge' ? ('nothing_to_merge' as const) : ('rejected' as const),
    detail: `merge request ${data.mr} rejected (${data.reason}): ${data.output.slice(-500)}`,
  };
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 72 ? `${line.slice(0, 69)}…` : line;
}
