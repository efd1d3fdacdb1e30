export { type BashToolOptions, createBashTool } from './bash.js';
export { defineTool, formatArgumentError } from '../../tool/define.js';
export { createEditTool } from './edit.js';
export { agentEnv, isSecretEnvName } from './env.js';
export { createGrepTool } from './grep.js';
export { createLsTool } from './ls.js';
export { createReadTool } from './read.js';
export * from '../../tool/types.js';
export { createWriteTool } from './write.js';
