export { type DiffStatResult, diff, diffStat, type FileStat } from './git/diff.js';
export { AGENT_EMAIL, AGENT_NAME, type GitOptions, type GitResult, git, gitError } from './git/git.js';
export { type InspectResult, inspectUserRepo, type UserRepo } from './git/repo.js';
export { createHub, HUB_MAIN, type HubResult } from './hub/hub.js';
export { type FetchResult, fetchResult } from './result.js';
export {
  addWorktree,
  type CommitResult,
  commitAll,
  removeWorktree,
  type WorktreeResult,
} from './worktree.js';
