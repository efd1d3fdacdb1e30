/**
 * GitLab's REST API v4 (gitlab.com or self-hosted /api/v4): the project's default branch, a merge
 * request (a draft is a title starting `Draft: `), its labels (created if missing) and reviewers
 * (GitLab wants user ids: each name is looked up first).
 */
import { z } from 'zod';
import { err, ok, type Result } from '../lang/result.js';
import { forgeHttp, readDefaultBranch } from './http.js';
import { Comment, comments, oldestFirst, postComment, readAllPages } from './issues.js';
import type { ForgeApi, ForgeTarget, OpenedPullRequest, PullRequestSpec } from './types.js';

const MergeRequest = z.object({ iid: z.number().int(), web_url: z.string() });
const MergeRequests = z.array(MergeRequest);
const Issue = z.object({
  iid: z.number().int(),
  title: z.string(),
  description: z.string().nullish(),
  web_url: z.string(),
});
const Users = z.array(z.object({ id: z.number().int(), username: z.string() }));

export function gitlabApi(target: ForgeTarget, token: string, fetchImpl?: typeof fetch): ForgeApi {
  const http = forgeHttp(target.apiBase, { authorization: `Bearer ${token}` }, fetchImpl);
  // The project by its full path, URL-encoded as one path segment.
  const project = `/projects/${encodeURIComponent(target.repoPath)}`;

  async function userIds(names: readonly string[]): Promise<{ ids: number[]; missing: string[] }> {
    const ids: number[] = [];
    const missing: string[] = [];
    for (const name of names) {
      const found = await http.request('GET', '/users', { query: { username: name } });
      const users = found.ok ? Users.safeParse(found.value.json) : null;
      const user = users?.success ? users.data.find((u) => u.username === name) : undefined;
      if (user) ids.push(user.id);
      else missing.push(found.ok ? name : `${name} (${found.error})`);
    }
    return { ids, missing };
  }

  const perPage = (page: number) => ({ per_page: '100', page: String(page) });
  return {
    kind: 'gitlab',
    defaultBranch: () => readDefaultBranch(http, project),
    async listIssues(label) {
      const query = { labels: label, state: 'opened', order_by: 'created_at', sort: 'asc' };
      const got = await readAllPages(http, `${project}/issues`, query, perPage, 100, Issue);
      if (!got.ok) return got;
      return ok(
        oldestFirst(
          got.value.map((i) => ({
            number: i.iid,
            title: i.title,
            body: i.description ?? '',
            url: i.web_url,
          })),
        ),
      );
    },
    async listComments(issue) {
      const query = { sort: 'asc', order_by: 'created_at' };
      const got = await readAllPages(http, `${project}/issues/${issue}/notes`, query, perPage, 100, Comment);
      return got.ok ? ok(comments(got.value)) : got;
    },
    addComment: (issue, body) => postComment(http, `${project}/issues/${issue}/notes`, body),
    async findPullRequest(head, base) {
      const got = await http.request('GET', `${project}/merge_requests`, {
        query: { source_branch: head, target_branch: base, state: 'opened' },
      });
      if (!got.ok) return got;
      const parsed = MergeRequests.safeParse(got.value.json);
      if (!parsed.success) return err(`GET ${project}/merge_requests: not a list of merge requests`);
      const found = parsed.data[0];
      return ok(found ? { number: found.iid, url: found.web_url } : null);
    },
    async openPullRequest(pr: PullRequestSpec): Promise<Result<OpenedPullRequest>> {
      const warnings: string[] = [];
      const reviewers = await userIds(pr.reviewers);
      if (reviewers.missing.length > 0) warnings.push(`reviewers not found: ${reviewers.missing.join(', ')}`);
      const created = await http.request('POST', `${project}/merge_requests`, {
        body: {
          source_branch: pr.head,
          target_branch: pr.base,
          title: pr.draft ? `Draft: ${pr.title}` : pr.title,
          description: pr.body,
          ...(pr.labels.length > 0 ? { labels: pr.labels.join(',') } : {}),
          ...(reviewers.ids.length > 0 ? { reviewer_ids: reviewers.ids } : {}),
        },
      });
      if (!created.ok) return created;
      const parsed = MergeRequest.safeParse(created.value.json);
      if (!parsed.success) return err(`POST ${project}/merge_requests: no iid or web_url in the answer`);
      return ok({ number: parsed.data.iid, url: parsed.data.web_url, warnings });
    },
  };
}
