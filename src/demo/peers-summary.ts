/** The closing summary of `colony demo peers`, computed from the run's events alone. */
import type { StoredEvent } from '../core/events.js';
import { formatCost } from '../view/format.js';
import type { RunSummary } from '../view/summary.js';

export interface PeersDemoStats {
  landed: number;
  rejected: Array<{ mr: number; reason: string }>;
  entriesByKind: Record<string, number>;
  claimConflicts: number;
  directMessages: number;
}

export function peersDemoStats(events: readonly StoredEvent[]): PeersDemoStats {
  const stats: PeersDemoStats = {
    landed: 0,
    rejected: [],
    entriesByKind: {},
    claimConflicts: 0,
    directMessages: 0,
  };
  for (const event of events) {
    if (event.kind === 'merge.landed') stats.landed++;
    else if (event.kind === 'merge.rejected') {
      const { mr, reason } = event.data;
      stats.rejected.push({ mr, reason });
    } else if (event.kind === 'context.posted') {
      const { kind } = event.data;
      stats.entriesByKind[kind] = (stats.entriesByKind[kind] ?? 0) + 1;
    } else if (event.kind === 'claim.conflict') stats.claimConflicts++;
    else if (event.kind === 'message.sent' && event.data.to !== null) stats.directMessages++;
  }
  return stats;
}

export function formatPeersDemoSummary(summary: RunSummary, stats: PeersDemoStats): string[] {
  const kinds = Object.entries(stats.entriesByKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  // e.g. "6 landed, 1 rejected (MR 4: conflict)"
  const why = stats.rejected.map((r) => `MR ${r.mr}: ${r.reason}`).join(', ');
  const rejected = `${stats.rejected.length} rejected${why ? ` (${why})` : ''}`;
  const t = summary.tokens;
  return [
    'Peers demo summary (SCRIPTED model):',
    `  agents           ${summary.agents}`,
    `  merges           ${stats.landed} landed, ${rejected}`,
    `  entries by kind  ${kinds || 'none'}`,
    `  claim conflicts  ${stats.claimConflicts}; direct messages ${stats.directMessages}`,
    `  tokens           ${t.input} input (${t.cachedInput} cached), ${t.output} output`,
    `  cost             ${summary.costUsd === null ? formatCost(null, summary.modelCalls) : `$${summary.costUsd.toFixed(4)}`}`,
    `  wall-clock       ${(summary.wallClockMs / 1000).toFixed(1)} s`,
  ];
}
