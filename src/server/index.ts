/** The dashboard server (docs/dashboard.md). */
export { decideAccess, isLoopbackHost } from './access.js';
export type { RunListItem } from './run-list.js';
export { RunTracker } from './run-tracker.js';
export {
  createRequestHandler,
  type RequestHandler,
  type RunningServer,
  type ServerOptions,
  type ServerStats,
  type StartResult,
  startServer,
} from './server.js';
export { SSE_DEFAULTS, type SseLimits, type SseStats } from './sse.js';
export { loadOrCreateToken, type TokenResult, tokenPath } from './token.js';
