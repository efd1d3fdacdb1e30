export { defineTool, formatArgumentError } from '../../tool/define.js';
export * from '../../tool/types.js';
export { type BashToolOptions, createBashTool } from './bash.js';
export { createEditTool } from './edit.js';
export { agentEnv, isSecretEnvName } from './env.js';
export { createGrepTool } from './grep.js';
export { createLsTool } from './ls.js';
export { createReadTool } from './read.js';
export { createWriteTool } from './write.js';
