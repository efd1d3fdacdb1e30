/**
 * A run's chain as the database holds it, walked in seq order with every hash recomputed in this
 * process (chain-hash.ts), each from the previous recomputed hash: the stored `hash` and `prev_hash`
 * columns are read only to be compared.
 */
import type pg from 'pg';
import { eventHash, GENESIS_HASH } from './chain-hash.js';

/** One event of the walked chain. */
export interface WalkedEvent {
  seq: number;
  kind: string;
  /** The hash recomputed here from the row's content and the previous recomputed hash. */
  hash: string;
  /** The `hash` column as stored. */
  storedHash: string;
}

const PAGE = 2000;

const PAGE_SQL = `SELECT seq, agent, kind, ((extract(epoch FROM ts) * 1000000)::bigint)::text AS micros,
       data::text AS data, hash
  FROM colony.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`;

interface PageRow {
  seq: string;
  agent: string | null;
  kind: string;
  micros: string;
  data: string;
  hash: string;
}

/** Every event of the run in seq order (at most `upToSeq` when given), read a page at a time. */
export async function walkChain(pool: pg.Pool, runId: string, upToSeq?: number): Promise<WalkedEvent[]> {
  const walked: WalkedEvent[] = [];
  let prev = GENESIS_HASH;
  let after = 0;
  for (;;) {
    const res = await pool.query<PageRow>(PAGE_SQL, [runId, after, PAGE]);
    for (const row of res.rows) {
      const seq = Number(row.seq);
      if (upToSeq !== undefined && seq > upToSeq) return walked;
      const hash = eventHash(prev, {
        runId,
        seq,
        agent: row.agent,
        kind: row.kind,
        micros: row.micros,
        data: row.data,
      });
      walked.push({ seq, kind: row.kind, hash, storedHash: row.hash });
      prev = hash;
      after = seq;
    }
    if (res.rows.length < PAGE) return walked;
  }
}

/** The first event whose stored hash is not its recomputed one, or whose seq leaves a gap; null if none. */
export function firstInconsistency(
  chain: readonly WalkedEvent[],
): { seq: number; kind: string; reason: string } | null {
  for (const [i, event] of chain.entries()) {
    if (event.seq !== i + 1) return { seq: event.seq, kind: event.kind, reason: `seq ${i + 1} is missing` };
    if (event.hash !== event.storedHash)
      return { seq: event.seq, kind: event.kind, reason: 'its stored hash is not the hash of its content' };
  }
  return null;
}
