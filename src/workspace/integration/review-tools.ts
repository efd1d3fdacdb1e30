/**
 * The integrator's tools (peers with `--integrators K`): `review_queue` lists the merge requests that
 * passed the merge check and wait for a review, with their diffs; `review_merge {mr, decision,
 * reason}` lands one (it is rebuilt on the then-current main) or rejects it (the author gets the
 * reason as a direct message and a FAIL entry). Nobody reviews their own change.
 *
 * An approval is a `merge.approved` event written as this agent (`agent` and `by` are its name, never
 * 'user'); the queue reads it back from the log like any other decision, so it lands the request only
 * if the rule of deciders.ts lets it count (an integrator, not the author).
 */
import { z } from 'zod';
import { RESERVED_AGENT_NAMES } from '../../agent/direct-message.js';
import type { EventLog } from '../../store/types.js';
import { defineTool, NO_ARGUMENTS } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { HUB_MAIN } from '../hub/hub.js';
import { readHubMain } from '../hub/main.js';
import { REVIEW_MERGE_TOOL } from './deciders.js';
import { changeSince } from './hub-git.js';
import type { IntegrationQueue } from './queue.js';

export interface ReviewToolContext {
  runId: string;
  agent: string;
  queue: IntegrationQueue;
  hubPath: string;
  log: EventLog;
}

const SHOWN = 5;

const REVIEW_SCHEMA = z.object({
  mr: z.number().int().positive(),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().trim().min(1).max(2000).describe('why: what you checked, or what must change'),
});

export function createReviewTools(ctx: ReviewToolContext): Tool[] {
  // A reviewer's decisions are written in its own name; a reserved one (the user's) must never be it.
  if (RESERVED_AGENT_NAMES.has(ctx.agent))
    throw new Error(`"${ctx.agent}" is a reserved name and cannot be an integrator`);
  const queueTool = defineTool({
    name: 'review_queue',
    description:
      'List the merge requests of other peers that passed the merge check and wait for your review, ' +
      'with what each changes (diff). Then call review_merge for each.',
    schema: NO_ARGUMENTS,
    mutates: false,
    async run() {
      const waiting = ctx.queue.awaitingRequests().filter((r) => r.agent !== ctx.agent);
      if (waiting.length === 0) return ok('No merge request waits for your review.');
      const main = (await readHubMain(ctx.hubPath)) ?? HUB_MAIN;
      const shown = await Promise.all(
        waiting.slice(0, SHOWN).map(async (r) => {
          const change = await changeSince(ctx.hubPath, main, r.commit);
          return [
            `## MR ${r.mr} by ${r.agent}: ${r.note}`,
            `files: ${change.files.join(', ')}`,
            change.patch,
          ].join('\n');
        }),
      );
      const more = waiting.length > SHOWN ? `\n(${waiting.length - SHOWN} more waiting after these)` : '';
      return ok(`${waiting.length} merge request(s) wait for review:\n\n${shown.join('\n\n')}${more}`);
    },
  });

  const decideTool = defineTool({
    name: REVIEW_MERGE_TOOL,
    description:
      'Decide on a merge request waiting for review: "approve" lands it on main (rebuilt on the current ' +
      'main and re-checked if main moved); "reject" sends it back to its author with your reason.',
    schema: REVIEW_SCHEMA,
    mutates: false,
    async run({ mr, decision, reason }) {
      const request = ctx.queue.awaitingRequests().find((r) => r.mr === mr);
      if (!request)
        return fail(`MR ${mr} does not wait for review (already decided, or unknown); call review_queue.`);
      if (request.agent === ctx.agent)
        return fail(`MR ${mr} is your own change: another integrator reviews it.`);
      if (decision === 'reject') {
        await ctx.queue.rejectAwaiting(mr, `rejected by ${ctx.agent} in review: ${reason}`);
        return ok(`Rejected MR ${mr}; ${request.agent} was told why.`);
      }
      await ctx.log.append({
        runId: ctx.runId,
        agent: ctx.agent,
        kind: 'merge.approved',
        data: { mr, by: ctx.agent },
      });
      // The queue applies the logged approval only if it counts (never the author's own, say).
      await ctx.queue.readDecisions();
      if (ctx.queue.awaitingApproval().includes(mr))
        return fail(
          `Your approval of MR ${mr} did not count (only an integrator other than the author decides; ` +
            'see merge.approval_ignored in the log): it still waits for a review.',
        );
      return ok(`Approved MR ${mr} by ${request.agent}; the queue lands it (its author hears the outcome).`);
    },
  });

  return [queueTool, decideTool];
}
