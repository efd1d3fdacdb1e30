/**
 * A run's shared workspace: the hub is the single source of truth; each writing agent gets its own
 * repository (agent-repo.ts: a checkout on `agent/<name>` and a git directory of its own), created
 * lazily (with the run's setup command run in it once). Colony copies an agent's commits into the
 * hub (`publish`) on merge_request, sync and when the agent is released; at the end the checkouts are
 * removed, branches stay in the hub, and hub `main` (the integrated result) is fetched into the user's
 * repository as `colony/<run-id>`. Agent repositories borrow the hub's object store (an alternate), so
 * a thousand agents need a thousand checkouts, not a thousand copies of the history.
 */

import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { agentRepoPlace } from '../core/agent-layout.js';
import { isKind } from '../core/events.js';
import { err, type Result } from '../lang/result.js';
import { Semaphore } from '../lang/semaphore.js';
import type { Sandbox } from '../sandbox/index.js';
import type { EventLog } from '../store/types.js';
import type { CheckoutFill } from '../tool/checkout-fill.js';
import { containAgentRepos } from './agent-repo/agent-git.js';
import { type AgentRepo, openAgentRepo, publishAgentRepo, removeAgentRepo } from './agent-repo/agent-repo.js';
import { CheckoutTemplates } from './agent-repo/checkout-template.js';
import { isLazy, LazyCheckout } from './agent-repo/lazy-checkout.js';
import { RefUpdateBatch } from './git/ref-batch.js';
import { createHub, HUB_MAIN } from './hub/hub.js';
import { hubMainCommit, readHubMain } from './hub/main.js';
import { fetchResult } from './result.js';

/** The run's result in the user's repository: its branch ref, or null when nothing landed on main. */
export type FinishResult = { ok: true; ref: string | null; commit: string } | { ok: false; error: string };

import { git } from './git/git.js';
import { runSetup, SETUP_OFFLINE } from './shell-command.js';
import { commitChanges, removeWorktree, worktreeState } from './worktree.js';

export interface AgentWorkspace {
  agent: string;
  /** The agent's checkout. */
  worktree: string;
  branch: string;
  /**
   * Copies the agent's current commit into the hub as its branch; returns that commit. `head`: the
   * commit HEAD is, when the caller just made it.
   */
  publish(head?: string): Promise<Result<string>>;
  /** Brings files into the checkout (a lazy one, lazy-checkout.ts; else it has them all already). */
  fill: CheckoutFill;
}

export interface AgentWorkspaceOptions {
  /**
   * The agent's tools fill its checkout on demand (tool/checkout-fill.ts), so a new one may start
   * with the top-level files only. Ignored (a full checkout) with a setup command, which runs in
   * the checkout, and on a fleet worker, whose work-in-progress snapshot reads the whole checkout.
   */
  lazy?: boolean;
}

export type WorkspaceResult<T> = Result<T>;

/**
 * Where the hub of this workspace comes from when it is a fleet worker's mirror of the run's hub
 * (src/fleet/worker-hub.ts): agents' branches are fetched before their repository is opened, and
 * every publish is pushed on to the real hub (and main fetched back). Absent: the hub is the real one.
 */
export interface HubUpstream {
  /**
   * Brings main and the agent's own refs from the real hub into the mirror. `ownRefs: false`: the
   * agent never had a repository (no `workspace.ready`), so it has no branch or work in progress on
   * the hub yet, and main alone will do.
   */
  fetchFor(agent: string, options: { ownRefs: boolean }): Promise<Result<void>>;
  /** After a repository was created fresh: restores the agent's work in progress, if any. */
  restoreWip(agent: string, repo: AgentRepo): Promise<Result<void>>;
  /** Pushes the agent's branch (as published into the mirror) to the real hub, then fetches main. */
  push(agent: string): Promise<Result<void>>;
}

/**
 * Checkouts filled at once. Filling one is mostly the kernel creating its files (~70 ms of system
 * time for 1,000 files here); 1,000 peers asking at once all shared the CPU and all got theirs ~2 min
 * later, so no peer worked until every checkout existed. In line, the first peers work within a
 * second while the rest are filled, and a run whose work is done before the last ones are reached
 * never fills them (see `signal`).
 */
const CHECKOUTS_AT_ONCE = Math.max(2, availableParallelism());
/**
 * Lazy checkouts filled at once: a dozen small files each (checkout-template.ts), so more of them
 * share the machine well: 1,000 peers, 2 cores, 8 against 2 at once: 34.8 / 37.3 s against
 * 36.4 / 39.5 s (pairs in one sitting), every peer started sooner.
 */
const LAZY_CHECKOUTS_AT_ONCE = 4 * CHECKOUTS_AT_ONCE;

export class RunWorkspace {
  readonly hubPath: string;
  private readonly ready = new Map<string, Promise<WorkspaceResult<AgentWorkspace>>>();
  private readonly checkouts = new Semaphore(CHECKOUTS_AT_ONCE);
  private readonly lazyCheckouts = new Semaphore(LAZY_CHECKOUTS_AT_ONCE);
  /** The commit each agent's branch has in the hub, as this process last published it. */
  private readonly published = new Map<string, string>();
  /**
   * Agents whose checkout is known to be clean at this commit: published with the commit just made
   * (merge_request), or a new lazy checkout on its start commit (a commit of the hub's, not published
   * yet), and no file tool called since. Only a lazy checkout's is trusted (its files change through
   * the tools alone: bash or a CLI makes it full first), and only in this process.
   */
  private readonly cleanAt = new Map<string, string>();
  /** New lazy checkouts of a commit are copies of the first one's. */
  private readonly templates = new CheckoutTemplates();
  /** Publishes that come together move their branches in one git process. */
  private readonly branchMoves: RefUpdateBatch;
  private basePathList: Promise<readonly string[]> | null = null;

  constructor(
    private readonly options: {
      runId: string;
      runDir: string;
      userRepo: string;
      baseCommit: string;
      log: EventLog;
      setup?: string;
      env?: NodeJS.ProcessEnv;
      /** Where the setup command runs (see runSetup); null: uncontained. */
      sandbox?: Sandbox | null;
      upstream?: HubUpstream;
      /** The run's end: an agent still waiting for its checkout then gets none. */
      signal?: AbortSignal;
    },
  ) {
    this.hubPath = join(options.runDir, 'hub.git');
    // Colony's own git calls on this run's agent repositories run in their sandboxes (agent-git.ts).
    containAgentRepos(options.runDir, options.sandbox ?? null);
    this.branchMoves = new RefUpdateBatch(this.hubPath, 'publish');
  }

  async open(): Promise<WorkspaceResult<string>> {
    const hub = await createHub(this.hubPath, this.options.userRepo, this.options.baseCommit);
    return hub.ok ? { ok: true, value: hub.hubPath } : hub;
  }

  /**
   * The files of the run's base commit, sorted (coord/nearby-paths.ts suggests unclaimed ones on a
   * claim conflict), read once from the hub — Colony's own repository, with git's plumbing: names are
   * data here, nothing is checked out or followed. Empty when the hub lacks the commit (a worker's
   * mirror before its first fetch) or the tree is larger than suggestions are worth.
   */
  basePaths(): Promise<readonly string[]> {
    this.basePathList ??= listBasePaths(this.hubPath, this.options.baseCommit);
    return this.basePathList;
  }

  worktreePath(agent: string): string {
    return agentRepoPlace(this.options.runDir, agent).checkout;
  }

  /** The agent's repository: its checkout and its git directory (beside the hub, not in the checkout). */
  repoOf(agent: string): AgentRepo {
    const place = agentRepoPlace(this.options.runDir, agent);
    return { checkout: place.checkout, gitDir: place.gitDir, branch: `agent/${agent}` };
  }

  /** Copies the agent's current commit into the hub (see AgentWorkspace.publish). */
  async publish(agent: string, head?: string, inHub = false): Promise<Result<string>> {
    // Without `head` (sync, release) the checkout may have moved: nothing is known of it.
    if (!head) this.cleanAt.delete(agent);
    const published = await publishAgentRepo(this.hubPath, this.repoOf(agent), {
      ...(head ? { knownHead: head, inHub } : {}),
      moveBranch: (ref, commit) => this.branchMoves.update(ref, commit),
    });
    const upstream = this.options.upstream;
    if (!published.ok) return published;
    if (upstream) {
      const pushed = await upstream.push(agent);
      if (!pushed.ok) return pushed;
    }
    this.published.set(agent, published.value);
    if (head) this.cleanAt.set(agent, head);
    return published;
  }

  /** The agent's worktree, created on first use (concurrent callers share one creation). */
  forAgent(agent: string, options: AgentWorkspaceOptions = {}): Promise<WorkspaceResult<AgentWorkspace>> {
    let pending = this.ready.get(agent);
    if (!pending) {
      pending = this.create(agent, options);
      this.ready.set(agent, pending);
      // A failed creation may be retried by a later call; so may one that threw (the database went
      // away while it read the log): a rejection kept here would fail every later call at once.
      const forget = () => {
        if (this.ready.get(agent) === pending) this.ready.delete(agent);
      };
      void pending.then((r) => {
        if (!r.ok) forget();
      }, forget);
    }
    return pending;
  }

  private async create(
    agent: string,
    options: AgentWorkspaceOptions,
  ): Promise<WorkspaceResult<AgentWorkspace>> {
    const { runId, log, setup } = this.options;
    const repo = this.repoOf(agent);
    const { branch, checkout: worktree } = repo;
    const existing = await log.read(runId, { agent, kinds: ['workspace.ready', 'setup.finished'] });
    const upstream = this.options.upstream;
    if (upstream) {
      const fetched = await upstream.fetchFor(agent, { ownRefs: existing.some(isKind('workspace.ready')) });
      if (!fetched.ok) return fetched;
    }
    // A repository made again for an agent that worked before (a fleet takeover, a lost checkout)
    // starts where its conversation did, not on a main that moved since: its work in progress is a
    // snapshot on top of that commit, and what it read of the files stays true.
    const loggedBase = existing.find(isKind('workspace.ready'))?.data.baseCommit;
    const lazy = options.lazy === true && !setup && !upstream;
    const opened = await (lazy ? this.lazyCheckouts : this.checkouts).run(async () =>
      this.options.signal?.aborted
        ? err('the run ended first')
        : openAgentRepo({
            hubPath: this.hubPath,
            repo,
            startCommit: loggedBase ?? (await this.mainCommit()),
            lazy,
            templates: this.templates,
          }),
    );
    if (!opened.ok) return opened;
    const main = opened.value;
    const fill = new LazyCheckout(repo, () => this.cleanAt.delete(agent));
    // A new lazy checkout is clean on its start commit (the hub's) until a tool touches it.
    if (lazy && main.created) this.cleanAt.set(agent, main.head);
    // A checkout left lazy by an earlier process, for an agent that now needs every file.
    if (!lazy) {
      const filled = await fill.all();
      if (!filled.ok) return filled;
    }
    if (upstream && main.created) {
      const restored = await upstream.restoreWip(agent, repo);
      if (!restored.ok) return restored;
    }
    if (!existing.some((e) => e.kind === 'workspace.ready')) {
      await log.append({
        runId,
        agent,
        kind: 'workspace.ready',
        data: { hub: this.hubPath, worktree, branch, baseCommit: main.head },
      });
    }
    if (setup && (main.created || !existing.some((e) => e.kind === 'setup.finished'))) {
      // The network only on the base commit's tree: a new checkout of it, with no work in progress
      // of the agent's restored into it (a fleet worker's agent that worked before).
      const onBaseTree =
        main.created &&
        main.head === this.options.baseCommit &&
        !(upstream && existing.some(isKind('workspace.ready')));
      const result = await runSetup(setup, worktree, {
        env: this.options.env,
        sandbox: this.options.sandbox,
        onBaseTree,
      });
      await log.append({
        runId,
        agent,
        kind: 'setup.finished',
        data: {
          command: setup,
          exitCode: result.exitCode,
          output: result.output,
          durationMs: result.durationMs,
        },
      });
      if (result.exitCode !== 0) {
        const offline = result.failedOffline ? `; ${SETUP_OFFLINE}` : '';
        return {
          ok: false,
          error: `setup command failed in ${worktree} (exit ${result.exitCode})${offline}`,
        };
      }
    }
    return {
      ok: true,
      value: { agent, worktree, branch, publish: (head) => this.publish(agent, head), fill },
    };
  }

  private async mainCommit(): Promise<string> {
    return (await readHubMain(this.hubPath)) ?? this.options.baseCommit;
  }

  /**
   * Removes one finished agent's repository, so a run of 1,000 peers keeps only the working ones on
   * disk. Uncommitted changes are first committed on the agent's branch and the branch is copied into
   * the hub (nothing is lost); a later forAgent() (e.g. after a resume) checks the branch out again.
   */
  async release(agent: string): Promise<WorkspaceResult<void>> {
    const repo = this.repoOf(agent);
    this.ready.delete(agent);
    const cleanAt = this.cleanAt.get(agent);
    this.cleanAt.delete(agent);
    if (!existsSync(join(repo.checkout, '.git'))) {
      await removeAgentRepo(repo);
      return { ok: true, value: undefined };
    }
    // Its last merge_request committed and published everything, or it is still as created (on a
    // commit of the hub's), and no tool touched a file since: no `git status` (at the end of a
    // 1,000-peer run, hundreds of agents are released at once) and no copy.
    if (cleanAt !== undefined && isLazy(repo)) {
      if (this.published.get(agent) !== cleanAt) {
        const published = await this.publish(agent, cleanAt, true);
        if (!published.ok) return published;
      }
      this.published.delete(agent);
      await removeAgentRepo(repo);
      return { ok: true, value: undefined };
    }
    const state = await worktreeState(repo.checkout);
    if (!state.ok) return state;
    const { head, clean } = state.value;
    if (!clean) {
      const saved = await commitChanges(
        repo.checkout,
        `colony: uncommitted work of ${agent} when it finished`,
        { hub: this.hubPath },
      );
      if (!saved.ok) return saved;
    }
    // Published already (its last merge_request or sync) and nothing since: no copy to make.
    if (!clean || head === null || this.published.get(agent) !== head) {
      const published = await this.publish(agent);
      if (!published.ok) return published;
    }
    this.published.delete(agent);
    await removeAgentRepo(repo);
    return { ok: true, value: undefined };
  }

  /**
   * Releases every agent repository (their work copied into the hub first) and Colony's own check
   * checkouts (hub worktrees), then fetches hub main as `colony/<run-id>` — only when main moved: a
   * run that landed nothing leaves no branch in the user's repository (`ref: null`).
   */
  async finish(): Promise<FinishResult> {
    // Every checkout, also those created by an earlier process of this run (before a resume).
    const folder = join(this.options.runDir, 'worktrees');
    const names = existsSync(folder) ? readdirSync(folder) : [];
    for (const name of names) {
      const repo = this.repoOf(name);
      const released = existsSync(repo.gitDir)
        ? await this.release(name)
        : await removeWorktree(this.hubPath, this.worktreePath(name));
      if (!released.ok) return released;
    }
    this.ready.clear();
    const main = await hubMainCommit(this.hubPath);
    if (!main.ok) return main;
    const commit = main.value;
    if (commit === this.options.baseCommit) return { ok: true, ref: null, commit };
    return fetchResult(this.options.userRepo, this.hubPath, HUB_MAIN, `colony/${this.options.runId}`);
  }
}

/** Base trees larger than this give no suggestions (a listing per run is then not worth its memory). */
const MAX_BASE_PATHS = 200_000;

async function listBasePaths(hubPath: string, commit: string): Promise<readonly string[]> {
  const listed = await git(['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit], { cwd: hubPath });
  if (!listed.ok) return [];
  const paths = listed.stdout.split('\0').filter((p) => p !== '');
  // Code-unit order: the order coord/nearby-paths.ts searches.
  return paths.length > MAX_BASE_PATHS ? [] : paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
