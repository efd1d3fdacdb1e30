/**
 * GitHub's REST API (api.github.com, or GitHub Enterprise Server's /api/v3): the repository's default
 * branch, a pull request (draft when asked), its labels and requested reviewers (`org/team` asks a team).
 */
import { z } from 'zod';
import { err, ok, type Result } from '../lang/result.js';
import { forgeHttp, readDefaultBranch } from './http.js';
import { Comment, comments, HubIssue, hubIssues, postComment, readAllPages } from './issues.js';
import type { ForgeApi, ForgeTarget, OpenedPullRequest, PullRequestSpec } from './types.js';

const Pull = z.object({ number: z.number().int(), html_url: z.string() });
const Pulls = z.array(Pull);

export function githubApi(target: ForgeTarget, token: string, fetchImpl?: typeof fetch): ForgeApi {
  const http = forgeHttp(
    target.apiBase,
    {
      authorization: `Bearer ${token}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    },
    fetchImpl,
  );
  const repo = `/repos/${target.repoPath}`;
  const perPage = (page: number) => ({ per_page: '100', page: String(page) });
  return {
    kind: 'github',
    defaultBranch: () => readDefaultBranch(http, repo),
    async listIssues(label) {
      // GitHub lists pull requests among issues: hubIssues leaves them out.
      const query = { labels: label, state: 'open', sort: 'created', direction: 'asc' };
      const got = await readAllPages(http, `${repo}/issues`, query, perPage, 100, HubIssue);
      return got.ok ? ok(hubIssues(got.value)) : got;
    },
    async listComments(issue) {
      const got = await readAllPages(http, `${repo}/issues/${issue}/comments`, {}, perPage, 100, Comment);
      return got.ok ? ok(comments(got.value)) : got;
    },
    addComment: (issue, body) => postComment(http, `${repo}/issues/${issue}/comments`, body),
    async findPullRequest(head, base) {
      const owner = target.repoPath.split('/')[0] ?? '';
      const got = await http.request('GET', `${repo}/pulls`, {
        query: { head: `${owner}:${head}`, base, state: 'open' },
      });
      if (!got.ok) return got;
      const parsed = Pulls.safeParse(got.value.json);
      if (!parsed.success) return err(`GET ${repo}/pulls: not a list of pull requests`);
      const found = parsed.data[0];
      return ok(found ? { number: found.number, url: found.html_url } : null);
    },
    async openPullRequest(pr: PullRequestSpec): Promise<Result<OpenedPullRequest>> {
      const created = await http.request('POST', `${repo}/pulls`, {
        body: { title: pr.title, head: pr.head, base: pr.base, body: pr.body, draft: pr.draft },
      });
      if (!created.ok) return created;
      const parsed = Pull.safeParse(created.value.json);
      if (!parsed.success) return err(`POST ${repo}/pulls: no number or html_url in the answer`);
      const { number, html_url: url } = parsed.data;
      const warnings: string[] = [];
      if (pr.labels.length > 0) {
        // Labels live on the pull request's issue; GitHub creates a label that does not exist yet.
        const labelled = await http.request('POST', `${repo}/issues/${number}/labels`, {
          body: { labels: [...pr.labels] },
        });
        if (!labelled.ok) warnings.push(`labels not added: ${labelled.error}`);
      }
      if (pr.reviewers.length > 0) {
        const teams = pr.reviewers.filter((r) => r.includes('/')).map((r) => r.slice(r.indexOf('/') + 1));
        const users = pr.reviewers.filter((r) => !r.includes('/'));
        const asked = await http.request('POST', `${repo}/pulls/${number}/requested_reviewers`, {
          body: { reviewers: users, ...(teams.length > 0 ? { team_reviewers: teams } : {}) },
        });
        if (!asked.ok) warnings.push(`reviewers not requested: ${asked.error}`);
      }
      return ok({ number, url, warnings });
    },
  };
}
