/** The tool kit every layer that gives agents tools builds on (agent, coord, workspace). */
export { TEMP_MARKER, writeFileAtomic } from './atomic-write.js';
export { defineTool, type ToolDefinition } from './define.js';
export * from './types.js';
