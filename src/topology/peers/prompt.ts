/**
 * The peer prompt: prompts/peer.md with the goal, verify command, tool names and repository summary
 * filled in. Everything before `{{id}}` is the shared prefix, identical for every peer so provider
 * prompt caching can serve it; only the peer's ID (at the very end) differs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ID_SLOT = '{{id}}';

// src/topology/peers/ when run from sources, dist/src/topology/peers/ when built.
const CANDIDATES = ['../../../prompts/peer.md', '../../../../prompts/peer.md'];

export type PromptResult = { ok: true; text: string } | { ok: false; error: string };

export function loadPeerTemplate(): PromptResult {
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8');
    if (!text.includes(ID_SLOT)) return { ok: false, error: `${path} has no ${ID_SLOT} slot` };
    return { ok: true, text };
  }
  return { ok: false, error: 'prompts/peer.md not found next to the Colony sources' };
}

export interface PrefixInput {
  goal: string;
  verify?: string;
  /** What the integration queue runs on each merge request. */
  mergeCheck?: string;
  /** Peers that also review merge requests (empty: the queue lands them). */
  integrators?: string[];
  tools: string[];
  repository: string;
}

/** The shared prefix: the template up to the ID slot, filled in. */
export function renderPeerPrefix(template: string, input: PrefixInput): string {
  const head = template.slice(0, template.indexOf(ID_SLOT));
  const values: Record<string, string> = {
    goal: input.goal.trim(),
    verify: input.verify ?? '(none given: run the relevant tests)',
    mergeCheck: input.mergeCheck ?? '(none: every merge that applies cleanly lands)',
    integrators: integratorsText(input.integrators ?? []),
    tools: input.tools.join(', '),
    repository: input.repository.trim(),
  };
  // One pass, so a value that happens to contain `{{…}}` is never substituted again.
  return head.replace(
    /\{\{(goal|verify|mergeCheck|integrators|tools|repository)\}\}/g,
    (_, key: string) => values[key] ?? '',
  );
}

function integratorsText(integrators: string[]): string {
  if (integrators.length === 0)
    return 'None: the integration queue lands every merge request that passes the merge check.';
  return (
    `${integrators.join(', ')}. A merge request that passes the merge check waits until one of them ` +
    'reviews it. If you are one of them, you also review: when told that a merge request waits (or when ' +
    'you gather), call `review_queue`, read each diff against the goal and the FAIL entries, and call ' +
    '`review_merge` with approve or reject and a reason. Never review your own change; review promptly, ' +
    'others are waiting.'
  );
}

/** The full system prompt of one peer. */
export function peerSystemPrompt(template: string, prefix: string, id: string): string {
  const tail = template.slice(template.indexOf(ID_SLOT) + ID_SLOT.length);
  return `${prefix}${id}${tail.trimEnd()}`;
}

/** Recovers the shared prefix from a peer's logged system prompt (so a resumed run keeps it identical). */
export function prefixFromSystem(template: string, system: string, id: string): string | null {
  const expectedTail = `${id}${template.slice(template.indexOf(ID_SLOT) + ID_SLOT.length).trimEnd()}`;
  return system.endsWith(expectedTail) ? system.slice(0, system.length - expectedTail.length) : null;
}
