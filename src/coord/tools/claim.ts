/** `claim {scope, summary}`: take a scope (path or task id) for yourself, atomically. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';
import { formatDuration, formatTask } from './format.js';

const schema = z.object({
  scope: z
    .string()
    .describe(
      'A path relative to the repository root (a folder like src/parser/ or a file like src/a.ts) or a task id (task:12).',
    ),
  summary: z.string().describe('What you will do there (at most 200 characters).'),
});

export function createClaimTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'claim',
    description:
      'Claim a scope before working on it. Atomic: at most one agent holds overlapping scopes (a folder ' +
      'overlaps everything under it). On a conflict you get the holder; pick other work or settle it by ' +
      'direct message. Your claims last while you are alive; release them when done.',
    schema,
    mutates: false,
    async run(args) {
      const result = await coord.claims.claim({ runId, agent, scope: args.scope, summary: args.summary });
      if (!result.ok) return fail(result.error);
      const outcome = result.value;
      if (outcome.status === 'conflict') {
        const text =
          `Conflict: ${outcome.holder} holds ${outcome.holderScope} (for ${formatDuration(outcome.heldMs)}): ` +
          `"${outcome.summary}". Choose other work, or settle it with ${outcome.holder} by direct message ` +
          `(message_send with to "${outcome.holder}").`;
        if (outcome.nearby.length > 0) {
          const free = outcome.nearby.map(formatTask).join('\n');
          return ok(
            `${text}\nFree tasks on the board (take one with claim_next, or claim its scope):\n${free}`,
          );
        }
        if (outcome.nearbyPaths.length === 0) return ok(text);
        return ok(
          `${text}\nNearby paths nobody holds and no PATCH covers (claim one if it still needs work):\n` +
            outcome.nearbyPaths.map((p) => `- ${p}`).join('\n'),
        );
      }
      if (outcome.existing) {
        return ok(
          `You already hold ${outcome.scope}, which covers ${args.scope.trim()}; its lease was renewed.`,
        );
      }
      const landed = outcome.alreadyPatched
        ? `\nNote: a PATCH entry already covers ${outcome.scope}: work there has landed. Check on main ` +
          '(sync) whether it still needs work; if not, release it and pick other work.'
        : '';
      return ok(
        `Granted: you hold ${outcome.scope} (claim ${outcome.claimId}; posted as CLAIM #${outcome.entryId}). ` +
          `It stays yours while you are alive; release it with release {scope, outcome} when done.${landed}`,
      );
    },
  });
}
