export { isSafeAgentName, isSafeRunId } from './agent-name.js';
export {
  AGENT_TOKEN_PATTERN,
  AGENT_TOKEN_PREFIX,
  AGENT_TOKEN_SCOPES,
  type AgentTokenClaims,
  type AgentTokenError,
  type AgentTokenScope,
  describeAgentTokenError,
  type IssueAgentToken,
  issueAgentToken,
  unverifiedTokenRun,
  verifyAgentToken,
} from './agent-token.js';
export { constantTimeEqual } from './constant-time.js';
export { createRunSecret, RUN_SECRET_BYTES } from './run-secret.js';
