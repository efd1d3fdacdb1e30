/**
 * What the fake forge does for each endpoint Colony calls, as each forge does it: the repository
 * (its default branch), a pull/merge request (refused when a branch is not in the repository, or one
 * is already open for the same branches: GitHub 422, GitLab and Gitea 409), labels, reviewers, users.
 * A draft is GitHub's `draft` field, GitLab's `Draft:` title prefix and Gitea's `WIP:` prefix.
 */
import { execFileSync } from 'node:child_process';
import type { ForgeKind } from '../../../src/forge/types.js';
import { type FakeIssue, issueRoute } from './issue-routes.js';

export interface OpenedPull {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  labels: string[];
  reviewers: string[];
}

export interface ForgeState {
  kind: ForgeKind;
  repoPath: string;
  defaultBranch: string;
  bare: string;
  labels: Array<{ id: number; name: string }>;
  users: Array<{ id: number; username: string }>;
  pulls: OpenedPull[];
  /** Issues (GitHub and Gitea number them with the pull requests). */
  issues: FakeIssue[];
  nextCommentId: number;
  origin: string;
}

export interface Answer {
  status: number;
  json: unknown;
}

const notFound: Answer = { status: 404, json: { message: 'Not Found' } };

export function route(
  state: ForgeState,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): Answer {
  const b = (body ?? {}) as Record<string, unknown>;
  const issueAnswer = issueRoute(state, method, path, query, b);
  if (issueAnswer) return issueAnswer;
  if (state.kind === 'gitlab') return gitlab(state, method, path, query, b);
  const repo = `/repos/${state.repoPath}`;
  if (method === 'GET' && path === repo)
    return { status: 200, json: { full_name: state.repoPath, default_branch: state.defaultBranch } };
  if (method === 'GET' && path === `${repo}/pulls`) {
    const owner = state.repoPath.split('/')[0];
    const open = state.pulls.filter((p) =>
      state.kind === 'github'
        ? `${owner}:${p.head}` === query.get('head') && p.base === query.get('base')
        : true,
    );
    const limit = Number(query.get('limit') ?? query.get('per_page') ?? 30);
    const page = Number(query.get('page') ?? 1);
    return {
      status: 200,
      json: open.slice((page - 1) * limit, page * limit).map((p) => ({
        number: p.number,
        html_url: `${state.origin}/${state.repoPath}/pull${state.kind === 'gitea' ? 's' : ''}/${p.number}`,
        head: { ref: p.head },
        base: { ref: p.base },
      })),
    };
  }
  if (method === 'POST' && path === `${repo}/pulls`) {
    const title = String(b.title ?? '');
    const draft = state.kind === 'github' ? b.draft === true : title.startsWith('WIP:');
    const labels =
      state.kind === 'gitea'
        ? ((b.labels as number[] | undefined) ?? []).map(
            (id) => state.labels.find((l) => l.id === id)?.name ?? `?${id}`,
          )
        : [];
    const opened = openPull(
      state,
      String(b.head ?? ''),
      String(b.base ?? ''),
      title,
      String(b.body ?? ''),
      draft,
      labels,
    );
    if ('status' in opened) return opened;
    const url = `${state.origin}/${state.repoPath}/pull${state.kind === 'gitea' ? 's' : ''}/${opened.number}`;
    return { status: 201, json: { number: opened.number, html_url: url, draft, title, state: 'open' } };
  }
  const labelsAdded = new RegExp(`^${repo}/issues/(\\d+)/labels$`).exec(path);
  if (state.kind === 'github' && method === 'POST' && labelsAdded) {
    const pull = state.pulls.find((p) => p.number === Number(labelsAdded[1]));
    if (!pull) return notFound;
    pull.labels.push(...((b.labels as string[] | undefined) ?? []));
    return { status: 200, json: pull.labels.map((name, i) => ({ id: i + 1, name })) };
  }
  const reviewers = new RegExp(`^${repo}/pulls/(\\d+)/requested_reviewers$`).exec(path);
  if (method === 'POST' && reviewers) {
    const pull = state.pulls.find((p) => p.number === Number(reviewers[1]));
    if (!pull) return notFound;
    const users = (b.reviewers as string[] | undefined) ?? [];
    const teams = ((b.team_reviewers as string[] | undefined) ?? []).map((t) => `team:${t}`);
    pull.reviewers.push(...users, ...teams);
    return { status: 201, json: state.kind === 'github' ? { number: pull.number } : [] };
  }
  if (state.kind === 'gitea' && method === 'GET' && path === `${repo}/labels`) {
    const limit = Number(query.get('limit') ?? 30);
    const page = Number(query.get('page') ?? 1);
    return { status: 200, json: state.labels.slice((page - 1) * limit, page * limit) };
  }
  return notFound;
}

function gitlab(
  state: ForgeState,
  method: string,
  path: string,
  query: URLSearchParams,
  b: Record<string, unknown>,
): Answer {
  const project = `/projects/${encodeURIComponent(state.repoPath)}`;
  if (method === 'GET' && path === project)
    return {
      status: 200,
      json: { id: 7, path_with_namespace: state.repoPath, default_branch: state.defaultBranch },
    };
  if (method === 'POST' && path === `${project}/merge_requests`) {
    const title = String(b.title ?? '');
    const labels =
      typeof b.labels === 'string' ? b.labels.split(',') : ((b.labels as string[] | undefined) ?? []);
    const opened = openPull(
      state,
      String(b.source_branch ?? ''),
      String(b.target_branch ?? ''),
      title,
      String(b.description ?? ''),
      title.startsWith('Draft:'),
      labels,
    );
    if ('status' in opened) return opened;
    opened.reviewers.push(
      ...((b.reviewer_ids as number[] | undefined) ?? []).map(
        (id) => state.users.find((u) => u.id === id)?.username ?? `?${id}`,
      ),
    );
    return {
      status: 201,
      json: {
        id: 1000 + opened.number,
        iid: opened.number,
        web_url: `${state.origin}/${state.repoPath}/-/merge_requests/${opened.number}`,
        draft: opened.draft,
      },
    };
  }
  if (method === 'GET' && path === `${project}/merge_requests`)
    return {
      status: 200,
      json: state.pulls
        .filter((p) => p.head === query.get('source_branch') && p.base === query.get('target_branch'))
        .map((p) => ({
          iid: p.number,
          web_url: `${state.origin}/${state.repoPath}/-/merge_requests/${p.number}`,
        })),
    };
  if (method === 'GET' && path === '/users')
    return { status: 200, json: state.users.filter((u) => u.username === query.get('username')) };
  return notFound;
}

function openPull(
  state: ForgeState,
  head: string,
  base: string,
  title: string,
  body: string,
  draft: boolean,
  labels: string[],
): OpenedPull | Answer {
  for (const branch of [head, base])
    if (!branchExists(state.bare, branch))
      return state.kind === 'github'
        ? {
            status: 422,
            json: {
              message: 'Validation Failed',
              errors: [
                { resource: 'PullRequest', field: branch === head ? 'head' : 'base', code: 'invalid' },
              ],
            },
          }
        : { status: 404, json: { message: `404 Branch ${branch} Not Found` } };
  if (state.pulls.some((p) => p.head === head && p.base === base))
    return state.kind === 'github'
      ? {
          status: 422,
          json: {
            message: 'Validation Failed',
            errors: [
              {
                resource: 'PullRequest',
                code: 'custom',
                message: `A pull request already exists for ${state.repoPath.split('/')[0]}:${head}.`,
              },
            ],
          },
        }
      : {
          status: 409,
          json: { message: ['Another open merge request already exists for this source branch'] },
        };
  const pull: OpenedPull = {
    // GitHub and Gitea number issues and pull requests together; GitLab's merge requests have their own.
    number: state.pulls.length + 1 + (state.kind === 'gitlab' ? 0 : state.issues.length),
    head,
    base,
    title,
    body,
    draft,
    labels,
    reviewers: [],
  };
  state.pulls.push(pull);
  return pull;
}

function branchExists(bare: string, branch: string): boolean {
  try {
    execFileSync('git', ['--git-dir', bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}
