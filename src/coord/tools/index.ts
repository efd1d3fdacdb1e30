/** The coordination tools of one agent (public names and arguments: docs/coordination.md). */
import { ALL_COORDINATION, type CoordinationCapability } from '../../agent/profiles.js';
import type { Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';
import { createClaimTool } from './claim.js';
import { createClaimNextTool } from './claim-next.js';
import { createContextPostTool } from './context-post.js';
import { createContextReadTool } from './context-read.js';
import { createContextUnfoldTool } from './context-unfold.js';
import { createMessageReadTool } from './message-read.js';
import { createMessageSendTool } from './message-send.js';
import { createReleaseTool } from './release.js';
import { createTasksAddTool } from './tasks-add.js';
import { createTasksReadyTool } from './tasks-ready.js';

export const COORDINATION_TOOL_NAMES = [
  'context_post',
  'context_read',
  'context_unfold',
  'message_send',
  'message_read',
  'claim',
  'release',
  'tasks_add',
  'tasks_ready',
  'claim_next',
] as const;

/** The tools each coordination capability gives (agent/profiles.ts: COORDINATION_CAPABILITIES). */
export const CAPABILITY_TOOLS: Readonly<Record<CoordinationCapability, readonly CoordinationToolName[]>> = {
  context: ['context_post', 'context_read', 'context_unfold'],
  claims: ['claim', 'release'],
  tasks: ['tasks_add', 'tasks_ready', 'claim_next'],
  messages: ['message_send', 'message_read'],
};

export type CoordinationToolName = (typeof COORDINATION_TOOL_NAMES)[number];

/** Tool names that read channel messages (the gather step): an agent with one of them reads channels. */
export const CHANNEL_READING_TOOLS: readonly CoordinationToolName[] = ['message_read', 'context_read'];

/**
 * The coordination tools of `agent` for the given capabilities (default: all of them, as peers have),
 * in one fixed order whatever the order of `capabilities`.
 */
export function createCoordinationTools(
  coord: Coordination,
  runId: string,
  agent: string,
  capabilities: readonly CoordinationCapability[] = ALL_COORDINATION,
): Tool[] {
  const wanted = new Set(capabilities.flatMap((c) => CAPABILITY_TOOLS[c]));
  const factories: Record<CoordinationToolName, () => Tool> = {
    context_post: () => createContextPostTool(coord, runId, agent),
    context_read: () => createContextReadTool(coord, runId, agent),
    context_unfold: () => createContextUnfoldTool(coord, runId),
    message_send: () => createMessageSendTool(coord, runId, agent),
    message_read: () => createMessageReadTool(coord, runId, agent),
    claim: () => createClaimTool(coord, runId, agent),
    release: () => createReleaseTool(coord, runId, agent),
    tasks_add: () => createTasksAddTool(coord, runId, agent),
    tasks_ready: () => createTasksReadyTool(coord, runId, agent),
    claim_next: () => createClaimNextTool(coord, runId, agent),
  };
  return COORDINATION_TOOL_NAMES.filter((name) => wanted.has(name)).map((name) => factories[name]());
}

/** Whether these capabilities let an agent hold claims (claims, or tasks: taking a task is a claim). */
export function holdsClaims(capabilities: readonly CoordinationCapability[]): boolean {
  return capabilities.includes('claims') || capabilities.includes('tasks');
}
