/**
 * The database's chain (recomputed in this process) against signed anchors: at every anchored seq the
 * chain must still have exactly the anchored hash. When it does not, the first event that differs is
 * found from the anchors' trails; without a trail, the anchors that still match and those that do not
 * bound it to a range.
 */
import { type AnchorRecord, TRAIL_DIGITS } from './anchor-record.js';
import type { WalkedEvent } from './chain-read.js';

export interface AnchorVerdict {
  ok: boolean;
  /** Anchors compared. */
  anchors: number;
  /** The last anchor of the file. */
  latest: { lastSeq: number; hash: string; anchoredAt: string };
  /** Events after the highest anchored seq: not covered by any anchor. */
  uncovered: number;
  /** The first event that differs from what was anchored (`kind` null: the event is missing). */
  firstDifference: { seq: number; kind: string | null } | null;
  /** Without a trail: the differing events lie in seq `after`+1 … `upTo`. */
  range: { after: number; upTo: number } | null;
}

function firstOffTrail(anchor: AnchorRecord, bySeq: ReadonlyMap<number, WalkedEvent>): number | null {
  if (anchor.trail === null) return null;
  for (let seq = 1; seq <= anchor.lastSeq; seq++) {
    const expected = anchor.trail.slice((seq - 1) * TRAIL_DIGITS, seq * TRAIL_DIGITS);
    if (bySeq.get(seq)?.hash.slice(0, TRAIL_DIGITS) !== expected) return seq;
  }
  // Every prefix matches yet the head does not: the difference is past what prefixes can tell.
  return anchor.lastSeq;
}

/** `anchors` are signature-checked records of this run, in file order (at least one). */
export function compareWithAnchors(
  chain: readonly WalkedEvent[],
  anchors: readonly AnchorRecord[],
): AnchorVerdict {
  const bySeq = new Map(chain.map((event) => [event.seq, event]));
  const matches = (anchor: AnchorRecord) => bySeq.get(anchor.lastSeq)?.hash === anchor.hash;
  const last = anchors[anchors.length - 1] as AnchorRecord;
  const chainEnd = chain.length > 0 ? (chain[chain.length - 1] as WalkedEvent).seq : 0;
  const verdict: AnchorVerdict = {
    ok: true,
    anchors: anchors.length,
    latest: { lastSeq: last.lastSeq, hash: last.hash, anchoredAt: last.anchoredAt },
    uncovered: Math.max(0, chainEnd - last.lastSeq),
    firstDifference: null,
    range: null,
  };
  const differing = anchors.filter((anchor) => !matches(anchor));
  if (differing.length === 0) return verdict;
  verdict.ok = false;
  const fromTrails = differing
    .map((a) => firstOffTrail(a, bySeq))
    .filter((seq): seq is number => seq !== null);
  if (fromTrails.length > 0) {
    const seq = Math.min(...fromTrails);
    verdict.firstDifference = { seq, kind: bySeq.get(seq)?.kind ?? null };
    return verdict;
  }
  const upTo = Math.min(...differing.map((a) => a.lastSeq));
  const after = Math.max(0, ...anchors.filter((a) => a.lastSeq < upTo && matches(a)).map((a) => a.lastSeq));
  verdict.range = { after, upTo };
  return verdict;
}
