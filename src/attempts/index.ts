/** Best of N (`colony run --attempts N`, docs/attempts.md). */
export { type AttemptsRequest, type AttemptsResult, runAttempts, type WinnerBranch } from './coordinator.js';
export { attemptFlag, isAttemptGroupId, MAX_ATTEMPTS, newAttemptGroupId, parseAttemptFlag } from './ids.js';
export { type JudgeOptions, judgeCommit, scoreOf } from './judge.js';
export { type AttemptOutcome, compareAttempts, type JudgeScore, rankAttempts } from './rank.js';
export { attemptsTable } from './table.js';
