/**
 * An event's chain hash computed in Colony's process, not by the database: the same canonical text as
 * `colony.event_hash` (migration 001), hashed here, so a superuser who replaces that SQL function
 * cannot make a rewritten row look right to an anchored check.
 */
import { createHash } from 'node:crypto';

/** The genesis `prev_hash` of every run. */
export const GENESIS_HASH = '0'.repeat(64);

/** A stored row as the database prints it (`data::text`, `ts` as integer microseconds). */
export interface ChainRowText {
  runId: string;
  seq: number;
  agent: string | null;
  kind: string;
  /** `(extract(epoch FROM ts) * 1000000)::bigint` as text. */
  micros: string;
  /** `data::text`: jsonb as Postgres prints it. */
  data: string;
}

/**
 * `to_json(text)::text`: Postgres escapes `"`, `\` and control characters below U+0020 (the short
 * forms \b \f \n \r \t, else \u00xx in lower case), exactly as JSON.stringify does for valid text.
 */
const pgJsonString = (text: string): string => JSON.stringify(text);

export function eventHash(prevHash: string, row: ChainRowText): string {
  const text = [
    prevHash,
    pgJsonString(row.runId),
    String(row.seq),
    row.agent === null ? 'null' : pgJsonString(row.agent),
    pgJsonString(row.kind),
    row.micros,
    row.data,
  ].join('\n');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
