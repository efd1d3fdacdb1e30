/**
 * `context_read {kinds?, grep?, limit?}`: the shared-context entries this agent has not seen yet,
 * FAIL first, as gists; also delivers unread messages (the gather step).
 */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { HeldClaim } from '../claims.js';
import { DEFAULT_READ_LIMIT } from '../context.js';
import type { Coordination } from '../coordination.js';
import { describeGrep, parseGrep } from '../grep.js';
import { CONTEXT_KINDS, type ContextKind } from '../types.js';
import { formatGist, formatMessages } from './format.js';

export const CONTEXT_READ_MAX_LIMIT = 200;

const schema = z.object({
  kinds: z
    .array(z.enum(CONTEXT_KINDS as [string, ...string[]]))
    .optional()
    .describe('Only these kinds (default: all).'),
  grep: z
    .string()
    .optional()
    .describe(
      'Filter on summary and detail, case-insensitive: terms joined by "," (or) and "&" (and); "," binds ' +
        'tighter: "lexer,tokenizer&crash" = (lexer OR tokenizer) AND crash.',
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(CONTEXT_READ_MAX_LIMIT)
    .optional()
    .describe(`Most entries to return (default ${DEFAULT_READ_LIMIT}).`),
});

/** Open claims shown by one context_read; the rest are counted. */
export const OPEN_CLAIMS_SHOWN = 100;

/**
 * The claims held right now, in one line (CLAIM entries say who claimed what when, not whether it is
 * still held): what a peer choosing work needs, at a fraction of the gists' size (issue 29).
 */
export function openClaimsLine(held: readonly HeldClaim[], reader: string): string {
  if (held.length === 0) return 'Open claims now: none.';
  const shown = held
    .slice(0, OPEN_CLAIMS_SHOWN)
    .map((c) => `${c.agent === reader ? 'you' : c.agent} ${c.scope}`)
    .join(' · ');
  const more = held.length > OPEN_CLAIMS_SHOWN ? ` · (+${held.length - OPEN_CLAIMS_SHOWN} more)` : '';
  return `Open claims now (${held.length}): ${shown}${more}`;
}

export function createContextReadTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'context_read',
    description:
      'Read what peers posted that you have not seen yet (FAIL entries first, then oldest first), as ' +
      'one-line gists; each read marks only the returned entries as read. Also shows the claims held ' +
      'right now (with CLAIM or all kinds) and your unread messages.',
    schema,
    mutates: false,
    async run(args) {
      const kinds = args.kinds as ContextKind[] | undefined;
      const read = await coord.context.read(runId, agent, { kinds, grep: args.grep, limit: args.limit });
      if (!read.ok) return fail(read.error);
      const { entries, remaining, unreadTotal } = read.value;
      const filters: string[] = [];
      if (kinds && kinds.length > 0) filters.push(`kinds ${kinds.join(',')}`);
      if (args.grep !== undefined && args.grep.trim() !== '') {
        const parsed = parseGrep(args.grep);
        if (parsed.ok) filters.push(`grep ${describeGrep(parsed.value)}`);
      }
      const filtered = filters.length > 0 ? ` matching ${filters.join(' and ')}` : '';
      const lines: string[] = [];
      if (entries.length === 0) lines.push(`No new shared-context entries${filtered}.`);
      else {
        lines.push(
          `${entries.length} new shared-context entr${entries.length === 1 ? 'y' : 'ies'}${filtered} (FAIL first):`,
        );
        for (const gist of entries) lines.push(formatGist(gist));
      }
      if (remaining > 0) lines.push(`${remaining} more unread${filtered}: call context_read again.`);
      const others = unreadTotal - remaining;
      if (filters.length > 0 && others > 0)
        lines.push(`${others} other unread entries do not match the filter.`);
      if (entries.some((e) => e.hasDetail)) lines.push('Use context_unfold {id} to read an entry in full.');
      if (!kinds || kinds.length === 0 || kinds.includes('CLAIM')) {
        const held = await coord.claims.held(runId);
        if (held.ok) lines.push(openClaimsLine(held.value, agent));
      }

      const messages = await coord.messages.read(runId, agent, 'context_read');
      if (messages.ok) {
        const section = formatMessages(messages.value.direct, messages.value.channel, messages.value.more);
        if (section.length > 0) lines.push('', ...section);
      } else lines.push('', `(messages could not be read: ${messages.error})`);
      return ok(lines.join('\n'));
    },
  });
}
