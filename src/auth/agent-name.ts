/**
 * Agent names that may appear in a token and in ref names (`refs/heads/agent/<name>`): one ref
 * component of plain characters, no `/` (so one agent's refs can never be a prefix of another's),
 * no `..`, no `.lock` suffix, no leading `.` or `-`.
 */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function isSafeAgentName(name: string): boolean {
  return AGENT_NAME.test(name) && !name.includes('..') && !name.endsWith('.lock') && !name.endsWith('.');
}

/** Run ids in tokens and URLs: the same plain characters (`r-<time36>-<hex>` from core/ids.ts fits). */
export function isSafeRunId(id: string): boolean {
  return AGENT_NAME.test(id) && !id.includes('..');
}
