/**
 * The token an external CLI acts with: one agent in one run, scopes `mcp` and `model` (its Colony
 * tools and its model calls; not `git`: it works in the checkout Colony gives it), signed with the
 * run's secret, expiring an hour after the run's deadline (a run without one: a day from now). A
 * restarted CLI gets a new one.
 */
import { issueAgentToken } from '../auth/index.js';

const AFTER_DEADLINE_MS = 60 * 60_000;
const WITHOUT_DEADLINE_MS = 24 * 60 * 60_000;

export function issueCliToken(
  secret: Uint8Array,
  fields: { runId: string; agent: string; deadlineAt?: string },
  now = Date.now(),
): string {
  const deadline = fields.deadlineAt ? Date.parse(fields.deadlineAt) : Number.NaN;
  const expiresAt =
    Number.isFinite(deadline) && deadline > now ? deadline + AFTER_DEADLINE_MS : now + WITHOUT_DEADLINE_MS;
  return issueAgentToken(secret, {
    runId: fields.runId,
    agent: fields.agent,
    expiresAt,
    scopes: ['mcp', 'model'],
  });
}
