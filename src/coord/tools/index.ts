/** The coordination tools of one agent (public names and arguments: docs/coordination.md). */
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

export function createCoordinationTools(coord: Coordination, runId: string, agent: string): Tool[] {
  return [
    createContextPostTool(coord, runId, agent),
    createContextReadTool(coord, runId, agent),
    createContextUnfoldTool(coord, runId),
    createMessageSendTool(coord, runId, agent),
    createMessageReadTool(coord, runId, agent),
    createClaimTool(coord, runId, agent),
    createReleaseTool(coord, runId, agent),
    createTasksAddTool(coord, runId, agent),
    createTasksReadyTool(coord, runId, agent),
    createClaimNextTool(coord, runId, agent),
  ];
}
