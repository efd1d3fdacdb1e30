/** External agent CLIs driving agents' loops (issue 14, docs/agent-cli.md). */
export type { AdapterInput, CliLaunch, LineSignal } from './adapter.js';
export { CLAUDE_CODE_PACKAGE, CLAUDE_CODE_VERSION, readClaudeLine, userMessage } from './claude-code.js';
export { type AgentCliAccess, CliHost, type CliHostRun, type DrivePeer } from './cli-host.js';
export { type CliProcessEnd, isCrash } from './cli-process.js';
export { CODEX_PACKAGE, CODEX_VERSION, codexConfig, codexLineReader, readCodexErrorLine } from './codex.js';
export { withDirectMessages } from './direct-messages.js';
export { type DriveCliOptions, driveCli, MAX_RESTARTS } from './drive.js';
export { parseAgentCliFlag } from './flag.js';
export { AgentCliServer, agentCliServer, type HostedRun, MCP_PATH, MODEL_PATH } from './host-server.js';
export { issueCliToken } from './token.js';
