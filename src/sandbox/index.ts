/** Contained agents (docs/sandbox.md): every process an agent starts runs in a bubblewrap sandbox. */
export { type ContainedCommand, type ContainOptions, containCommand } from './argv.js';
export { detectSandbox, findOnPath } from './detect.js';
export { isEnvName, SANDBOX_HOME, sandboxEnv } from './env.js';
export { openSandbox } from './open.js';
export { containRepoCommand, type RepoCommandOptions } from './repo-command.js';
export { readOnlySandbox, type Sandbox, setupSandbox } from './sandbox.js';
export {
  resolveSandboxSetting,
  SANDBOX_MODES,
  type SandboxMode,
  type SandboxRequest,
  type SandboxSetting,
} from './setting.js';
export { type CommandToStart, killGroup, startCommand, startStreamedCommand } from './spawn.js';
export { SANDBOX_PACKAGE, sandboxUnavailableMessage } from './unavailable.js';
