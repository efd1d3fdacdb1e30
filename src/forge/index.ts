/** Forges: a finished run's result pushed to a git remote, with a pull/merge request (docs/forges.md). */

export {
  type PreparedPublish,
  type PublishedPullRequest,
  type PublishOutcome,
  type PublishRequest,
  preparePublish,
  publishRun,
} from './publish.js';
export { checkApiBase, isForgeKind, KNOWN_FORGE_HOSTS, resolveTarget } from './target.js';
export { FORGE_KINDS, type ForgeKind, TOKEN_ENV } from './types.js';
