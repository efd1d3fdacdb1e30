/**
 * Gitea's and Forgejo's REST API (/api/v1): the repository's default branch, a pull request (a draft
 * is a title starting `WIP: `, which both read as work in progress), labels (Gitea takes label ids:
 * the repository's labels are listed first; a missing label is a warning, not created) and reviewers
 * (`org/team` asks a team).
 */
import { z } from 'zod';
import { err, ok, type Result } from '../lang/result.js';
import { forgeHttp, readDefaultBranch } from './http.js';
import { Comment, comments, HubIssue, hubIssues, postComment, readAllPages } from './issues.js';
import type { ForgeApi, ForgeTarget, OpenedPullRequest, PullRequestSpec } from './types.js';

const Pull = z.object({ number: z.number().int(), html_url: z.string() });
const OpenPulls = z.array(
  Pull.extend({ head: z.object({ ref: z.string() }), base: z.object({ ref: z.string() }) }),
);
const Labels = z.array(z.object({ id: z.number().int(), name: z.string() }));
const PAGE = 50;
const MAX_PAGES = 20;

export function giteaApi(target: ForgeTarget, token: string, fetchImpl?: typeof fetch): ForgeApi {
  const http = forgeHttp(target.apiBase, { authorization: `token ${token}` }, fetchImpl);
  const repo = `/repos/${target.repoPath}`;

  async function labelIds(names: readonly string[]): Promise<Result<{ ids: number[]; missing: string[] }>> {
    const all: Array<{ id: number; name: string }> = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const got = await http.request('GET', `${repo}/labels`, {
        query: { page: String(page), limit: String(PAGE) },
      });
      if (!got.ok) return got;
      const parsed = Labels.safeParse(got.value.json);
      if (!parsed.success) return err(`GET ${repo}/labels: not a list of labels`);
      all.push(...parsed.data);
      if (parsed.data.length < PAGE) break;
    }
    const ids: number[] = [];
    const missing: string[] = [];
    for (const name of names) {
      const label = all.find((l) => l.name === name);
      if (label) ids.push(label.id);
      else missing.push(name);
    }
    return ok({ ids, missing });
  }

  return {
    kind: 'gitea',
    defaultBranch: () => readDefaultBranch(http, repo),
    async listIssues(label) {
      const query = { state: 'open', labels: label, type: 'issues' };
      const paged = (page: number) => ({ page: String(page), limit: String(PAGE) });
      const got = await readAllPages(http, `${repo}/issues`, query, paged, PAGE, HubIssue);
      return got.ok ? ok(hubIssues(got.value)) : got;
    },
    async listComments(issue) {
      // Gitea answers an issue's comments in one list (no pages).
      const path = `${repo}/issues/${issue}/comments`;
      const got = await http.request('GET', path);
      if (!got.ok) return got;
      const parsed = z.array(Comment).safeParse(got.value.json);
      return parsed.success ? ok(comments(parsed.data)) : err(`GET ${path}: not a list of comments`);
    },
    addComment: (issue, body) => postComment(http, `${repo}/issues/${issue}/comments`, body),
    async findPullRequest(head, base) {
      // Gitea's pull request by base and head takes the branches as path segments, which a branch
      // name with a slash breaks: the open pull requests are listed instead.
      for (let page = 1; page <= MAX_PAGES; page++) {
        const got = await http.request('GET', `${repo}/pulls`, {
          query: { state: 'open', page: String(page), limit: String(PAGE) },
        });
        if (!got.ok) return got;
        const parsed = OpenPulls.safeParse(got.value.json);
        if (!parsed.success) return err(`GET ${repo}/pulls: not a list of pull requests`);
        const found = parsed.data.find((p) => p.head.ref === head && p.base.ref === base);
        if (found) return ok({ number: found.number, url: found.html_url });
        if (parsed.data.length < PAGE) break;
      }
      return ok(null);
    },
    async openPullRequest(pr: PullRequestSpec): Promise<Result<OpenedPullRequest>> {
      const warnings: string[] = [];
      let labels: number[] = [];
      if (pr.labels.length > 0) {
        const found = await labelIds(pr.labels);
        if (!found.ok) warnings.push(`labels not added: ${found.error}`);
        else {
          labels = found.value.ids;
          if (found.value.missing.length > 0)
            warnings.push(
              `labels not on the repository (Gitea adds existing labels only): ${found.value.missing.join(', ')}`,
            );
        }
      }
      const created = await http.request('POST', `${repo}/pulls`, {
        body: {
          head: pr.head,
          base: pr.base,
          title: pr.draft ? `WIP: ${pr.title}` : pr.title,
          body: pr.body,
          ...(labels.length > 0 ? { labels } : {}),
        },
      });
      if (!created.ok) return created;
      const parsed = Pull.safeParse(created.value.json);
      if (!parsed.success) return err(`POST ${repo}/pulls: no number or html_url in the answer`);
      const { number, html_url: url } = parsed.data;
      if (pr.reviewers.length > 0) {
        // `org/team` asks a team (Gitea takes the team's name).
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
