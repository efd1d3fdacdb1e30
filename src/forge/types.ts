/** The forges Colony opens pull/merge requests on, and what every forge adapter offers. */
import type { Result } from '../lang/result.js';

export type ForgeKind = 'github' | 'gitlab' | 'gitea';

export const FORGE_KINDS: readonly ForgeKind[] = ['github', 'gitlab', 'gitea'];

/** The variable each forge's token comes from. */
export const TOKEN_ENV: Readonly<Record<ForgeKind, string>> = {
  github: 'GITHUB_TOKEN',
  gitlab: 'GITLAB_TOKEN',
  gitea: 'GITEA_TOKEN',
};

/** Where a repository lives on a forge and where its API is. */
export interface ForgeTarget {
  kind: ForgeKind;
  /** The API's base URL, no trailing slash: https://api.github.com, https://gitlab.com/api/v4, … */
  apiBase: string;
  /** `owner/name`; on GitLab the project's full path (`group/subgroup/project`). */
  repoPath: string;
  /**
   * The `host[:port]` that git pushes to and that may be sent the token with the push (the forge's
   * own git host), or null when no push carries it.
   */
  gitHost: string | null;
}

/** One pull/merge request to open. */
export interface PullRequestSpec {
  /** The branch with the changes (already pushed). */
  head: string;
  /** The branch it should merge into. */
  base: string;
  title: string;
  body: string;
  draft: boolean;
  labels: readonly string[];
  /** User names (GitHub: `org/team` asks a team). */
  reviewers: readonly string[];
}

export interface OpenedPullRequest {
  /** The number the forge shows (GitLab: the merge request's iid). */
  number: number;
  url: string;
  /** Opened, but a label or reviewer could not be added: why. */
  warnings: string[];
}

/** An open issue (never a pull request: GitHub lists those among issues, the adapter leaves them out). */
export interface ForgeIssue {
  /** The number the forge shows (GitLab: the issue's iid). */
  number: number;
  title: string;
  /** Empty when the issue has none. */
  body: string;
  url: string;
}

/** A comment on an issue (GitLab: a note). */
export interface ForgeComment {
  id: number;
  body: string;
}

/** A forge's REST API as Colony uses it. Errors are data: one readable line. */
export interface ForgeApi {
  kind: ForgeKind;
  defaultBranch(): Promise<Result<string>>;
  openPullRequest(pr: PullRequestSpec): Promise<Result<OpenedPullRequest>>;
  /** The open pull/merge request from `head` into `base`, if there is one (a publish run again). */
  findPullRequest(head: string, base: string): Promise<Result<{ number: number; url: string } | null>>;
  /** The open issues with this label, oldest first (`colony watch`). */
  listIssues(label: string): Promise<Result<ForgeIssue[]>>;
  /** The comments on an issue, oldest first. */
  listComments(issue: number): Promise<Result<ForgeComment[]>>;
  /** Adds a comment to an issue. */
  addComment(issue: number, body: string): Promise<Result<ForgeComment>>;
}
