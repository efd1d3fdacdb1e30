/**
 * The fake forge's issues and issue comments, as each forge serves them (`colony watch`): GitHub
 * `GET /repos/{o}/{r}/issues` (pull requests listed among them, marked `pull_request`) and
 * `…/issues/{n}/comments`; GitLab `GET /projects/{id}/issues` and `…/issues/{iid}/notes`; Gitea
 * `GET /repos/{o}/{r}/issues?type=issues` and `…/issues/{index}/comments`. Labels filter, `state`
 * open only, pages (`per_page`/`limit`, `page`).
 */
import type { Answer, ForgeState } from './routes.js';

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  open: boolean;
  /** GitHub lists pull requests among issues: this one is one. */
  pullRequest: boolean;
  comments: Array<{ id: number; body: string }>;
}

export function issueRoute(
  state: ForgeState,
  method: string,
  path: string,
  query: URLSearchParams,
  body: Record<string, unknown>,
): Answer | null {
  const base =
    state.kind === 'gitlab' ? `/projects/${encodeURIComponent(state.repoPath)}` : `/repos/${state.repoPath}`;
  if (method === 'GET' && path === `${base}/issues`) {
    const wanted = (query.get('labels') ?? '').split(',').filter((l) => l !== '');
    const openState = state.kind === 'gitlab' ? 'opened' : 'open';
    const listed = state.issues.filter(
      (i) =>
        (query.get('state') === null || query.get('state') === openState ? i.open : !i.open) &&
        wanted.every((l) => i.labels.includes(l)) &&
        (state.kind !== 'gitea' || query.get('type') !== 'issues' || !i.pullRequest) &&
        (state.kind === 'github' || !i.pullRequest),
    );
    const size = Number(query.get('per_page') ?? query.get('limit') ?? 30);
    const page = Number(query.get('page') ?? 1);
    return {
      status: 200,
      json: listed.slice((page - 1) * size, page * size).map((i) => issueJson(state, i)),
    };
  }
  const comments = new RegExp(
    `^${escapeRegExp(base)}/issues/(\\d+)/${state.kind === 'gitlab' ? 'notes' : 'comments'}$`,
  ).exec(path);
  if (!comments) return null;
  const issue = state.issues.find((i) => i.number === Number(comments[1]));
  if (!issue) return { status: 404, json: { message: 'Not Found' } };
  if (method === 'GET') {
    const size = Number(query.get('per_page') ?? 1000);
    const page = Number(query.get('page') ?? 1);
    return { status: 200, json: issue.comments.slice((page - 1) * size, page * size) };
  }
  if (method === 'POST') {
    const comment = { id: state.nextCommentId++, body: String(body.body ?? '') };
    issue.comments.push(comment);
    return { status: 201, json: comment };
  }
  return null;
}

function issueJson(state: ForgeState, issue: FakeIssue): unknown {
  const web = `${state.origin}/${state.repoPath}`;
  if (state.kind === 'gitlab')
    return {
      id: 5000 + issue.number,
      iid: issue.number,
      title: issue.title,
      description: issue.body === '' ? null : issue.body,
      state: issue.open ? 'opened' : 'closed',
      labels: issue.labels,
      web_url: `${web}/-/issues/${issue.number}`,
    };
  return {
    id: 5000 + issue.number,
    number: issue.number,
    title: issue.title,
    body: issue.body === '' ? null : issue.body,
    state: issue.open ? 'open' : 'closed',
    labels: issue.labels.map((name, i) => ({ id: i + 1, name })),
    html_url: `${web}/${issue.pullRequest ? 'pull' : 'issues'}/${issue.number}`,
    ...(issue.pullRequest ? { pull_request: { url: `${web}/pulls/${issue.number}` } } : {}),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
