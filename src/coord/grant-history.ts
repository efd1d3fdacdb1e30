/**
 * Audits claims from the event log alone: replays `claim.granted`, `claim.released` and
 * `claim.expired` in log order and reports every grant made while another agent held an
 * overlapping scope (a double grant). An agent's own overlapping claims are not violations.
 */
import type { StoredEvent } from '../core/events.js';
import { parseScope, type Scope, scopesOverlap } from './scope.js';

export interface GrantViolation {
  runId: string;
  /** The grant that made two holders. */
  seq: number;
  claimId: number;
  agent: string;
  scope: string;
  /** The claim it overlaps. */
  otherClaimId: number;
  otherAgent: string;
  otherScope: string;
}

export interface GrantHistory {
  ok: boolean;
  grants: number;
  releases: number;
  expiries: number;
  conflicts: number;
  /** Most claims held at once. */
  maxHeld: number;
  violations: GrantViolation[];
  /** Releases/expiries of claims never granted, or ended twice: a broken history. */
  anomalies: string[];
}

interface Held {
  claimId: number;
  agent: string;
  scope: Scope;
}

export function checkGrantHistory(events: readonly StoredEvent[]): GrantHistory {
  const out: GrantHistory = {
    ok: true,
    grants: 0,
    releases: 0,
    expiries: 0,
    conflicts: 0,
    maxHeld: 0,
    violations: [],
    anomalies: [],
  };
  const byRun = new Map<string, Map<number, Held>>();
  const ended = new Set<string>();
  const sorted = [...events].sort((a, b) =>
    a.runId === b.runId ? a.seq - b.seq : a.runId < b.runId ? -1 : 1,
  );
  for (const event of sorted) {
    let held = byRun.get(event.runId);
    if (!held) {
      held = new Map();
      byRun.set(event.runId, held);
    }
    if (event.kind === 'claim.conflict') out.conflicts++;
    if (event.kind === 'claim.granted') {
      const data = event.data;
      out.grants++;
      const parsed = parseScope(data.scope);
      if (!parsed.ok) {
        out.anomalies.push(`seq ${event.seq}: grant of unparseable scope ${data.scope}`);
        continue;
      }
      const agent = event.agent ?? '';
      for (const other of held.values()) {
        if (other.agent !== agent && scopesOverlap(other.scope, parsed.value)) {
          out.violations.push({
            runId: event.runId,
            seq: event.seq,
            claimId: data.claimId,
            agent,
            scope: parsed.value.text,
            otherClaimId: other.claimId,
            otherAgent: other.agent,
            otherScope: other.scope.text,
          });
        }
      }
      held.set(data.claimId, { claimId: data.claimId, agent, scope: parsed.value });
      out.maxHeld = Math.max(out.maxHeld, held.size);
    } else if (event.kind === 'claim.released' || event.kind === 'claim.expired') {
      const { claimId } = event.data as { claimId: number };
      if (event.kind === 'claim.released') out.releases++;
      else out.expiries++;
      const key = `${event.runId}\u0000${claimId}`;
      if (!held.delete(claimId)) {
        out.anomalies.push(
          `seq ${event.seq}: ${event.kind} of claim ${claimId} that is ${ended.has(key) ? 'already ended' : 'not held'}`,
        );
      }
      ended.add(key);
    }
  }
  out.ok = out.violations.length === 0 && out.anomalies.length === 0;
  return out;
}
