/** `context_post {kind, summary, detail?, scope?}`: append an entry to the run's shared context. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { MAX_SUMMARY_CHARS } from '../context.js';
import type { Coordination } from '../coordination.js';
import { CONTEXT_KINDS } from '../types.js';

const schema = z.object({
  kind: z
    .enum(CONTEXT_KINDS as [string, ...string[]])
    .describe(
      'OBSERVED (something you saw), FACT (confirmed), FAIL (an approach that did not work: say why), ' +
        'CLAIM (what you work on; the claim tool posts this for you), PATCH (a completed patch: files, idea, evidence, commit)',
    ),
  summary: z
    .string()
    .describe(`The gist, at most ${MAX_SUMMARY_CHARS} characters. Peers read only this at first.`),
  detail: z
    .string()
    .optional()
    .describe('Full text: evidence, output, commit hash. Read on demand with context_unfold.'),
  scope: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('Paths (src/parser/, src/a.ts) or task ids (task:12) the entry is about.'),
});

export function createContextPostTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'context_post',
    description:
      "Append an entry to the team's shared context (append-only; never edited). Post FAIL entries for " +
      'dead ends so peers do not repeat them, FACT/OBSERVED for findings, PATCH when a change landed.',
    schema,
    mutates: false,
    async run(args) {
      const scope =
        args.scope === undefined ? null : typeof args.scope === 'string' ? [args.scope] : args.scope;
      const posted = await coord.context.post({
        runId,
        author: agent,
        kind: args.kind as (typeof CONTEXT_KINDS)[number],
        summary: args.summary,
        detail: args.detail ?? null,
        scope,
      });
      if (!posted.ok) return fail(posted.error);
      return ok(`Posted #${posted.value.id} (${posted.value.kind}).`);
    },
  });
}
