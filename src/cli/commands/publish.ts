import { terminalJson, terminalLine } from '../../core/terminal-text.js';
import {
  FORGE_KINDS,
  isForgeKind,
  type PreparedPublish,
  type PublishOutcome,
  type PublishRequest,
  preparePublish,
  publishRun,
} from '../../forge/index.js';
import type { Store } from '../../store/index.js';
import { onePositional, parseFlags, UsageError } from '../args.js';
import { withStore } from '../store-access.js';

/** The options `colony run` shares (after --push REMOTE); also in RUN_HELP. */
export const PUBLISH_FLAGS_HELP = `  --pr                 open a pull request (GitLab: merge request) for the pushed branch, its body the
                       run's summary; a draft when the run did not succeed (verify failed, …)
  --draft              open it as a draft anyway
  --label L            add this label (repeatable)
  --reviewer R         ask this user to review (repeatable; GitHub, Gitea: org/team asks a team)
  --per-merge-request  one branch, colony/<run-id>-mr-<n>, and one pull request per landed merge
                       request instead (stacked: each based on the one before)
  --forge KIND         github, gitlab or gitea (Gitea and Forgejo): needed for a host other than
                       github.com, gitlab.com and codeberg.org
  --forge-api URL      that forge's API base, e.g. https://git.example.com/api/v1 (GitHub Enterprise
                       /api/v3, GitLab /api/v4); the token is sent there and to the remote's host only`;

export const PUBLISH_HELP = `colony publish RUN [--remote REMOTE] [--pr] [options]

Pushes a finished run's result branch colony/<run-id> from your repository to a git remote (default
origin) and, with --pr, opens a pull request on GitHub, a merge request on GitLab or a pull request
on Gitea/Forgejo through their REST APIs. The token comes from GITHUB_TOKEN, GITLAB_TOKEN or
GITEA_TOKEN and is sent only to that forge's API and to the remote when it is that forge's own host.
Nothing is ever force-pushed: a branch already on the remote at another commit is left alone and
the publish fails naming it. The push runs from a git directory of Colony's own, so nothing in your
repository's config (hooks, fsmonitor, sshCommand, insteadOf, credential helpers) is run. Each step
is logged in the run's log (publish.pushed, publish.pr_opened, publish.failed). See docs/forges.md.

  --remote REMOTE      a remote of your repository (default origin) or a URL (https, http, ssh)
${PUBLISH_FLAGS_HELP}
  --json               print what was pushed and opened as one JSON object`;

/** parseArgs options of the flags `colony run` shares. */
export const PUBLISH_OPTIONS = {
  pr: { type: 'boolean' },
  draft: { type: 'boolean' },
  label: { type: 'string', multiple: true },
  reviewer: { type: 'string', multiple: true },
  'per-merge-request': { type: 'boolean' },
  forge: { type: 'string' },
  'forge-api': { type: 'string' },
} as const;

interface PublishValues {
  pr?: boolean;
  draft?: boolean;
  label?: string[];
  reviewer?: string[];
  'per-merge-request'?: boolean;
  forge?: string;
  'forge-api'?: string;
}

/** The flags as a PublishRequest (usage errors name `command` and the remote flag it takes). */
export function publishRequestOf(values: PublishValues, remote: string, command: string): PublishRequest {
  const labels = values.label ?? [];
  const reviewers = values.reviewer ?? [];
  if (!values.pr && (values.draft || labels.length > 0 || reviewers.length > 0))
    throw new UsageError(`${command}: --draft, --label and --reviewer need --pr`);
  if (reviewers.some((r) => r.trim() === '' || /[\s,]/.test(r)))
    throw new UsageError(`${command}: a reviewer is one user name (or org/team), without spaces or commas`);
  if (labels.some((l) => l.trim() === '' || l.includes(',')))
    throw new UsageError(`${command}: a label must not be empty or hold a comma`);
  const forge = values.forge;
  if (forge !== undefined && !isForgeKind(forge))
    throw new UsageError(`${command}: --forge must be ${FORGE_KINDS.join(', ')}, got "${forge}"`);
  return {
    remote,
    pullRequest: values.pr ? { draft: values.draft === true, labels, reviewers } : null,
    perMergeRequest: values['per-merge-request'] === true,
    ...(forge !== undefined ? { forge } : {}),
    ...(values['forge-api'] !== undefined ? { forgeApi: values['forge-api'] } : {}),
  };
}

/** Checks the remote, forge and token for `repo` (before a run starts); a problem is a usage error. */
export async function preparePublishOrThrow(
  repo: string,
  request: PublishRequest,
  command: string,
): Promise<PreparedPublish> {
  const prepared = await preparePublish(repo, request, process.env);
  if (!prepared.ok) throw new UsageError(`${command}: ${prepared.error}`);
  return prepared.value;
}

/**
 * Publishes the run and prints what happened (`out`: stdout, or stderr beside `run --json`).
 * Returns 0, or 1 when it failed (the reason printed as a colony: line).
 */
export async function publishAndReport(
  store: Store,
  runId: string,
  prepared: PreparedPublish,
  out: NodeJS.WritableStream,
  json = false,
): Promise<number> {
  const published = await publishRun(store.log, runId, prepared);
  if (!published.ok) {
    process.stderr.write(`colony: publish: ${terminalLine(published.error)}\n`);
    return 1;
  }
  out.write(json ? `${terminalJson(published.value)}\n` : lines(published.value));
  return 0;
}

function lines(outcome: PublishOutcome): string {
  const out: string[] = [];
  for (const b of outcome.pushed)
    out.push(
      b.created
        ? `pushed ${b.branch} (${b.commit.slice(0, 10)}) to ${outcome.remote}`
        : `${b.branch} is already on ${outcome.remote} at ${b.commit.slice(0, 10)} (left as it is)`,
    );
  for (const pr of outcome.pullRequests) {
    out.push(
      pr.existing
        ? `pull request #${pr.number} (${pr.branch} → ${pr.base}) is open already: ${pr.url}`
        : `opened ${pr.draft ? 'draft ' : ''}pull request #${pr.number} (${pr.branch} → ${pr.base}): ${pr.url}`,
    );
    for (const warning of pr.warnings) out.push(`  warning: ${warning}`);
  }
  return out.map((line) => `${terminalLine(line)}\n`).join('');
}

export async function publishCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      remote: { type: 'string' },
      ...PUBLISH_OPTIONS,
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'publish',
  );
  if (values.help) {
    process.stdout.write(`${PUBLISH_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'publish');
  const request = publishRequestOf(values, values.remote ?? 'origin', 'publish');
  return withStore(async (store) => {
    const run = await store.runs.getRun(runId);
    if (!run) throw new UsageError(`no such run: ${runId} (see colony runs)`);
    const prepared = await preparePublishOrThrow(run.repo, request, 'publish');
    return publishAndReport(store, runId, prepared, process.stdout, values.json === true);
  });
}

/** `colony run --push REMOTE [--pr …]`: the request, or null without --push (the other flags need it). */
export function runPublishRequest(values: PublishValues & { push?: string }): PublishRequest | null {
  if (values.push !== undefined) return publishRequestOf(values, values.push, 'run');
  const given = Object.keys(PUBLISH_OPTIONS).filter(
    (flag) => values[flag as keyof PublishValues] !== undefined,
  );
  if (given.length > 0) throw new UsageError(`run: --${given.join(', --')} need --push REMOTE`);
  return null;
}

/** After `colony run`: publishes a run that landed something; the run's exit code, or 1 if it failed. */
export async function publishAfterRun(
  store: Store,
  summary: { runId: string; resultBranch: string | null },
  prepared: PreparedPublish,
  json: boolean,
  runExitCode: number,
): Promise<number> {
  const out = json ? process.stderr : process.stdout;
  if (summary.resultBranch === null) {
    out.write('nothing to publish: the run landed nothing (no result branch)\n');
    return runExitCode;
  }
  const code = await publishAndReport(store, summary.runId, prepared, out);
  return code === 0 ? runExitCode : 1;
}
