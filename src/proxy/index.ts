/** The metering model proxy for external agent CLIs (docs/proxy.md). */
export { authenticateModelRequest, presentedModelToken } from './auth.js';
export { modelProxyEnv } from './client-env.js';
export { AgentMeter } from './meter.js';
export {
  createModelProxyHandler,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_PROXY_TIMEOUT_MS,
  type ModelProxyOptions,
  type ModelProxyRun,
  type ModelProxyServer,
  startModelProxy,
} from './model-proxy.js';
export { type Wire, type WireProtocol, wireOf } from './wire.js';
