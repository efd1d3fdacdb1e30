export { type DiffStatResult, diff, diffStat, type FileStat } from './diff.js';
export { AGENT_EMAIL, AGENT_NAME, type GitOptions, type GitResult, git, gitError } from './git.js';
export { createHub, HUB_MAIN, type HubResult } from './hub.js';
export { type InspectResult, inspectUserRepo, type UserRepo } from './repo.js';
export { type FetchResult, fetchResult } from './result.js';
export {
  addWorktree,
  type CommitResult,
  commitAll,
  removeWorktree,
  type WorktreeResult,
} from './worktree.js';
