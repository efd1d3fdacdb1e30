/**
 * What an agent outside the peers protocol (prompts/peer.md) is told about the coordination tools its
 * profile gives it: an orchestrated subagent, a workflow agent. Empty without any.
 */
import type { CoordinationCapability } from '../agent/profiles.js';

/** `holdsUntil`: when its claims are released ("your task ends", "you finish"). */
export function coordinationPrompt(
  capabilities: readonly CoordinationCapability[],
  holdsUntil: string,
): string {
  if (capabilities.length === 0) return '';
  const has = new Set(capabilities);
  const lines = ['Team coordination: you share a context and claims with the other agents of this run.'];
  if (has.has('context'))
    lines.push(
      '- context_read shows what the others posted that you have not seen (FAIL first): read it when you',
      '  start. context_post a FAIL when something failed that the others should not repeat, a FACT they',
      '  can build on; context_unfold {id} shows an entry in full.',
    );
  if (has.has('claims'))
    lines.push(
      '- claim a file or folder before you change it; on a conflict choose other work or ask the holder.',
      `  Your claims are released when ${holdsUntil} (release {scope, outcome} frees one earlier).`,
    );
  if (has.has('tasks'))
    lines.push('- The task board: tasks_add, tasks_ready, claim_next (taking a task claims its scope).');
  if (has.has('messages'))
    lines.push('- message_send {to | channel, text} and message_read: direct and channel messages.');
  return lines.join('\n');
}
