/**
 * Landed merges by requesting agent and time (merge.requested → merge.landed `files`): a task's files
 * are the files its agent landed while the task ran (the conflict relation, conflicts.ts).
 */
import type { StoredEvent } from '../../core/events.js';

export interface LandedMerge {
  agent: string;
  atMs: number;
  files: string[];
}

export function landedMerges(events: readonly StoredEvent[]): LandedMerge[] {
  const requested = new Map<number, { agent: string; atMs: number }>();
  const landed: LandedMerge[] = [];
  for (const event of events) {
    if (event.kind === 'merge.requested' && event.agent)
      requested.set(event.data.mr, { agent: event.agent, atMs: Date.parse(event.ts) });
    if (event.kind === 'merge.landed') {
      const request = requested.get(event.data.mr);
      if (request) landed.push({ ...request, files: event.data.files ?? [] });
    }
  }
  return landed;
}

/** The files `agents` landed between fromMs and toMs (inclusive), sorted, once each. */
export function filesOf(
  merges: readonly LandedMerge[],
  agents: readonly string[],
  fromMs = Number.NEGATIVE_INFINITY,
  toMs = Number.POSITIVE_INFINITY,
): string[] {
  const files = merges
    .filter((m) => agents.includes(m.agent) && m.atMs >= fromMs && m.atMs <= toMs)
    .flatMap((m) => m.files);
  return [...new Set(files)].sort();
}
