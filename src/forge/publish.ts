/**
 * `colony publish` and `colony run --push`: a finished run's result branch (or, per merge request,
 * each landed merge request's commit on a branch of its own) pushed to a remote of the user's
 * repository, and a pull/merge request opened for it on the remote's forge, its body the run's summary.
 * A draft when the run did not succeed (verify failed, budget, stop). Each step is an event in the
 * run's log: `publish.pushed`, `publish.pr_opened`, `publish.failed` (scrubbed of the token).
 *
 * `preparePublish` checks what can fail before anything runs (the remote, the forge, the token), so
 * `colony run --push` refuses a bad remote before it spends anything.
 */
import path from 'node:path';
import type { EventInput, EventKind, EventPayloads } from '../core/events.js';
import { createScrubber, secretValuesFromEnv } from '../core/secrets.js';
import { err, ok, type Result } from '../lang/result.js';
import type { EventLog } from '../store/types.js';
import { isValidBranchName } from '../workspace/git/ref-name.js';
import { type ApiFactory, FORGE_APIS } from './apis.js';
import { type MergeRequestPart, pullRequestBody, pullRequestTitle } from './pr-body.js';
import { type BranchPush, pushBranches } from './push.js';
import { parseRemoteUrl, type RemoteUrl } from './remote-url.js';
import { mergeRequestBranch, type RunResult, runResultOf } from './run-result.js';
import { resolveTarget } from './target.js';
import { forgeToken, pushAuth } from './token.js';
import { type ForgeApi, type ForgeKind, type ForgeTarget, TOKEN_ENV } from './types.js';
import { remoteUrlOf, userObjectsDir } from './user-repo.js';

export interface PublishRequest {
  /** A remote's name in the user's repository (default origin), or a URL. */
  remote: string;
  /** Open a pull/merge request per pushed branch; null: push only. */
  pullRequest: { draft: boolean; labels: string[]; reviewers: string[] } | null;
  /** One branch (and pull request) per landed merge request instead of the result branch. */
  perMergeRequest: boolean;
  /** For a host that is not a known public forge: which forge it runs, and its API base. */
  forge?: ForgeKind;
  forgeApi?: string;
}

export interface PreparedPublish {
  request: PublishRequest;
  remote: RemoteUrl;
  /** Null for a push only to a host of no known forge. */
  target: ForgeTarget | null;
  token: string | null;
  /** Every secret value of the environment and the token, kept out of the log and messages. */
  secrets: string[];
}

/** A pull request this publish opened or found open: what `publish.pr_opened` logs, but the forge. */
export type PublishedPullRequest = Omit<EventPayloads['publish.pr_opened'], 'forge'>;

export interface PublishOutcome {
  remote: string;
  pushed: Array<BranchPush & { created: boolean }>;
  pullRequests: PublishedPullRequest[];
}

export async function preparePublish(
  repo: string,
  request: PublishRequest,
  env: NodeJS.ProcessEnv,
): Promise<Result<PreparedPublish>> {
  const url = await remoteUrlOf(path.resolve(repo), request.remote);
  if (!url.ok) return url;
  const remote = parseRemoteUrl(url.value);
  if (!remote.ok) return remote;
  const needsForge =
    request.pullRequest !== null || request.forge !== undefined || request.forgeApi !== undefined;
  const target = resolveTarget(remote.value, {
    ...(request.forge ? { forge: request.forge } : {}),
    ...(request.forgeApi !== undefined ? { apiBase: request.forgeApi } : {}),
  });
  if (!target.ok && needsForge) return target;
  const forge = target.ok ? target.value : null;
  let token: string | null = null;
  if (forge) {
    const found = forgeToken(forge.kind, env);
    if (!found.ok && request.pullRequest !== null) return found;
    token = found.ok ? found.value : null;
  }
  const secrets = [...secretValuesFromEnv(env), ...(token ? [token] : [])];
  return ok({ request, remote: remote.value, target: forge, token, secrets });
}

/** Pushes and opens pull requests for a finished run; every step is logged in the run's log. */
export async function publishRun(
  log: EventLog,
  runId: string,
  prepared: PreparedPublish,
  apis: Readonly<Record<ForgeKind, ApiFactory>> = FORGE_APIS,
): Promise<Result<PublishOutcome>> {
  const scrubber = createScrubber(prepared.secrets);
  // Every payload scrubbed of the token and the environment's secrets (the forge's answers included).
  const record = <K extends EventKind>(event: EventInput<K>) =>
    log.append({ ...event, data: scrubber.scrubValue(event.data) } as EventInput);
  const remote = prepared.remote.display;
  const forge = prepared.target?.kind ?? null;
  const failed = async (step: 'push' | 'pull_request', branch: string | null, error: string) => {
    const message = scrubber.scrub(error);
    await record({
      runId,
      agent: null,
      kind: 'publish.failed',
      data: { step, remote, branch, error: message },
    });
    return err(message);
  };

  const result = runResultOf(runId, await log.read(runId));
  if (!result.ok) return result;
  const branches = branchesOf(result.value, prepared.request.perMergeRequest);
  if (!branches.ok) return branches;

  let api: ForgeApi | null = null;
  let defaultBranch = '';
  if (prepared.request.pullRequest) {
    if (!prepared.target || !prepared.token) return err('a pull request needs the forge and its token');
    api = apis[prepared.target.kind](prepared.target, prepared.token);
    // Before anything is pushed: a wrong token or repository fails here, with nothing left behind.
    const base = await api.defaultBranch();
    if (!base.ok) return failed('pull_request', null, base.error);
    defaultBranch = base.value;
  }

  const objects = await userObjectsDir(result.value.repo);
  if (!objects.ok) return failed('push', null, objects.error);
  const auth =
    prepared.target && prepared.token ? pushAuth(prepared.remote, prepared.target, prepared.token) : null;
  const pushed = await pushBranches({
    objectsDir: objects.value,
    remote: prepared.remote,
    branches: branches.value.map((b) => b.push),
    auth,
  });
  if (!pushed.ok)
    return failed('push', null, pushed.error + credentialHint(prepared, auth !== null, pushed.error));
  const created = new Set(pushed.value.created.map((b) => b.branch));
  const pushedList = branches.value.map(({ push }) => ({ ...push, created: created.has(push.branch) }));
  await record({
    runId,
    agent: null,
    kind: 'publish.pushed',
    data: { remote, forge, branches: pushedList },
  });

  const pullRequests: PublishedPullRequest[] = [];
  const options = prepared.request.pullRequest;
  if (api && options) {
    const s = result.value.summary;
    const draft = options.draft || s.status !== 'succeeded' || s.verify?.passed === false;
    let base = defaultBranch;
    for (const { push, part } of branches.value) {
      // Published before at this commit: the pull request it opened then is the answer, not a second one.
      const before = created.has(push.branch) ? null : await api.findPullRequest(push.branch, base);
      if (before && !before.ok) return failed('pull_request', push.branch, before.error);
      if (before?.value) {
        const pr: PublishedPullRequest = {
          ...before.value,
          branch: push.branch,
          base,
          draft,
          mr: part?.merge.mr ?? null,
          existing: true,
          warnings: [],
        };
        pullRequests.push(pr);
        await record({ runId, agent: null, kind: 'publish.pr_opened', data: { forge: api.kind, ...pr } });
        if (part) base = push.branch;
        continue;
      }
      const opened = await api.openPullRequest({
        head: push.branch,
        base,
        title: pullRequestTitle(result.value, part),
        body: pullRequestBody(result.value, draft, part),
        draft,
        labels: options.labels,
        reviewers: options.reviewers,
      });
      if (!opened.ok) {
        const done = pullRequests.map((p) => p.url).join(', ');
        return failed(
          'pull_request',
          push.branch,
          `${opened.error}${done ? ` (opened before it: ${done})` : ''}; the branch is pushed: ` +
            'publish again to open the pull request (the push is not repeated)',
        );
      }
      const pr: PublishedPullRequest = {
        number: opened.value.number,
        url: opened.value.url,
        branch: push.branch,
        base,
        draft,
        mr: part?.merge.mr ?? null,
        existing: false,
        warnings: opened.value.warnings.map((w) => scrubber.scrub(w)),
      };
      pullRequests.push(pr);
      await record({
        runId,
        agent: null,
        kind: 'publish.pr_opened',
        data: { forge: api.kind, ...pr },
      });
      // Stacked: the next merge request's pull request shows only its own change.
      if (part) base = push.branch;
    }
  }
  return ok({ remote, pushed: pushedList, pullRequests });
}

/** The branches to push: the result branch, or one per landed merge request in landing order. */
function branchesOf(
  result: RunResult,
  perMergeRequest: boolean,
): Result<Array<{ push: BranchPush; part?: MergeRequestPart }>> {
  const list = perMergeRequest
    ? result.landed.map((merge, i) => ({
        push: { branch: mergeRequestBranch(result, merge.mr), commit: merge.commit },
        part: { merge, index: i + 1, of: result.landed.length },
      }))
    : [{ push: { branch: result.branch, commit: result.commit } }];
  if (list.length === 0) return err(`run ${result.runId} has no landed merge request to publish one by one`);
  const bad = list.find((b) => !isValidBranchName(b.push.branch));
  if (bad) return err(`not a valid branch name: ${bad.push.branch}`);
  return ok(list);
}

/**
 * Why a push over http(s) found no credentials: Colony's push reads no credential helper (neither the
 * repository's nor yours), only the forge's token, sent to the forge's own host.
 */
function credentialHint(prepared: PreparedPublish, sentToken: boolean, error: string): string {
  if (sentToken || prepared.remote.scheme === 'ssh') return '';
  if (!/could not read Username|Authentication failed|403|401/i.test(error)) return '';
  const variable = prepared.target ? TOKEN_ENV[prepared.target.kind] : null;
  const why =
    prepared.target && prepared.target.gitHost === null
      ? `the remote is not on ${new URL(prepared.target.apiBase).host}, the forge's host, so its token was not sent`
      : variable
        ? `set ${variable} (Colony uses no git credential helper)`
        : 'Colony uses no git credential helper and knows no forge token for this host (--forge, --forge-api)';
  return ` (${why}; or push over ssh)`;
}
