/** The dashboard server (docs/dashboard.md). */
export { decideAccess, isLoopbackHost } from './access.js';
export type { RunListItem } from './run-list.js';
export { RunTracker } from './run-tracker.js';
export {
  createRequestHandler,
  type RequestHandler,
  type RunningServer,
  type ServerOptions,
  type StartResult,
  startServer,
} from './server.js';
export { loadOrCreateToken, type TokenResult, tokenPath } from './token.js';
