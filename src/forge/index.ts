/** Forges: a finished run's result pushed to a git remote, with a pull/merge request (docs/forges.md). */

export { forgeApiFor } from './apis.js';
export { code as markdownCode } from './pr-body.js';
export {
  type PreparedPublish,
  type PublishedPullRequest,
  type PublishOutcome,
  type PublishRequest,
  preparePublish,
  publishRun,
} from './publish.js';
export { checkApiBase, isForgeKind, KNOWN_FORGE_HOSTS, resolveTarget } from './target.js';
export { forgeToken } from './token.js';
export {
  FORGE_KINDS,
  type ForgeApi,
  type ForgeComment,
  type ForgeIssue,
  type ForgeKind,
  type ForgeTarget,
  TOKEN_ENV,
} from './types.js';
