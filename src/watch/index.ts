/** `colony watch`: labelled issues of a forge repository become runs and pull requests (docs/watch.md). */
export { backoff, forgeErrorHint, forgeStatus } from './backoff.js';
export { finishedComment, marker, startedComment } from './comments.js';
export { goalOf } from './goal.js';
export { type TakenIssue, type WatchedRepo, watchTable } from './watch-table.js';
export { Watcher, type WatchOptions } from './watcher.js';
