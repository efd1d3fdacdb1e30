import type { EventInput, EventKind, StoredEvent } from '../core/events.js';

export interface ChainBreak {
  seq: number;
  reason: 'hash_mismatch' | 'prev_hash_mismatch' | 'sequence_gap';
}

export interface VerifyResult {
  runId: string;
  events: number;
  ok: boolean;
  firstBreak: ChainBreak | null;
}

export interface RunRow {
  runId: string;
  topology: string;
  goal: string;
  repo: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
}

export interface ReadOptions<K extends EventKind = EventKind> {
  afterSeq?: number;
  agent?: string;
  kinds?: K[];
  limit?: number;
  /** Leave out the bulky fields a fold never reads (tool output, prompts, long verify output). */
  slim?: boolean;
}

/**
 * The durable, append-only event log. `append` resolves once the event is committed; appends from
 * many agents are grouped into one multi-row insert (group commit).
 */
export interface EventLog {
  append<K extends EventKind>(event: EventInput<K>): Promise<StoredEvent<K>>;
  appendMany(events: EventInput[]): Promise<StoredEvent[]>;
  /** Events in log order; naming `kinds` narrows the result to those kinds. */
  read<K extends EventKind = EventKind>(runId: string, options?: ReadOptions<K>): Promise<StoredEvent<K>[]>;
  verify(runId: string): Promise<VerifyResult>;
  flush(): Promise<void>;
}
