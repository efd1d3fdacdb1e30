/**
 * Messages: channels (`all` = every agent of the run, or a named channel) and direct messages
 * between agents and from the user. Each send is one statement: the run's next message id (under the
 * run's message_heads row lock, so ids commit in order), the row, its `message.sent` event and a
 * NOTIFY. Each agent reads with two low-water marks (direct, channel). Unread direct messages are
 * taken by the agent loop before every model call (see injector.ts); the NotifyListener's flag makes
 * that free when nothing arrived.
 */
import type pg from 'pg';
import { prepared } from '../store/prepared.js';
import type { MessageNotice, NotifyListener } from './listener.js';
import { errorText, inTransaction, isoText } from './sql.js';
import { ALL_CHANNEL, type Result, USER_SENDER } from './types.js';

export const MAX_MESSAGE_CHARS = 20_000;
/** Most messages of each box (direct, channel) returned by one read; the rest stay unread. */
export const MAX_MESSAGES_PER_READ = 100;
const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface SendInput {
  runId: string;
  /** Agent name, or `user`. */
  from: string;
  /** Direct message to this agent. */
  to?: string | null;
  /** Channel name; neither `to` nor `channel` means the broadcast channel `all`. */
  channel?: string | null;
  text: string;
}

export interface CoordMessage {
  id: number;
  runId: string;
  from: string;
  to: string | null;
  channel: string | null;
  text: string;
  createdAt: string;
}

export interface MessageReadResult {
  direct: CoordMessage[];
  channel: CoordMessage[];
  /** True when more unread messages are waiting (a read returns at most 100 per box). */
  more: boolean;
}

export type Delivery = 'interrupt' | 'message_read' | 'context_read';
export type WaitOutcome = 'message' | 'aborted' | 'timeout' | 'closed';

const SEND_SQL = `
WITH head AS (
  INSERT INTO colony.message_heads AS h (run_id, last_id) VALUES ($1, 1)
  ON CONFLICT (run_id) DO UPDATE SET last_id = h.last_id + 1
  RETURNING h.last_id AS id
),
joined AS (
  INSERT INTO colony.channel_members (run_id, agent, channel, joined_after)
  SELECT $1, $2, $4, head.id - 1 FROM head WHERE $7::boolean
  ON CONFLICT DO NOTHING
),
msg AS (
  INSERT INTO colony.messages (run_id, id, sender, recipient, channel, text)
  SELECT $1, head.id, $2, $3, $4, $5 FROM head
  RETURNING id, created_at
),
logged AS (
  INSERT INTO colony.events (run_id, agent, kind, data)
  SELECT $1, $6, 'message.sent',
         jsonb_build_object('id', id, 'to', $3::text, 'channel', $4::text, 'text', $5::text)
  FROM msg
),
notified AS (
  SELECT pg_notify('colony_coord',
    json_build_object('r', $1::text, 'i', id, 't', $3::text, 'c', $4::text, 'f', $2::text)::text)
  FROM msg
)
SELECT msg.id, ${isoText('msg.created_at')} AS created_at FROM msg, (SELECT count(*) FROM notified) n`;

// $1 run, $2 agent, $3 direct_low, $4 channel_low, $5 include channel messages, $6 cap, $7 via.
const READ_SQL = `
WITH d AS (
  SELECT id, sender, recipient, channel, text, created_at FROM colony.messages
  WHERE run_id = $1 AND recipient = $2 AND id > $3 ORDER BY id LIMIT $6 + 1
),
c AS (
  SELECT m.id, m.sender, m.recipient, m.channel, m.text, m.created_at FROM colony.messages m
  WHERE $5::boolean AND m.run_id = $1 AND m.channel IS NOT NULL AND m.id > $4 AND m.sender <> $2
    AND (m.channel = '${ALL_CHANNEL}' OR EXISTS (
      SELECT 1 FROM colony.channel_members cm
      WHERE cm.run_id = $1 AND cm.agent = $2 AND cm.channel = m.channel AND m.id > cm.joined_after))
  ORDER BY m.id LIMIT $6 + 1
),
ds AS (SELECT * FROM d ORDER BY id LIMIT $6),
cs AS (SELECT * FROM c ORDER BY id LIMIT $6),
top AS (SELECT coalesce(max(id), 0) AS id FROM colony.messages WHERE run_id = $1),
moved AS (
  -- Not capped: everything up to the newest message is consumed (ids commit in order).
  UPDATE colony.message_cursors mc SET
    direct_low = CASE WHEN (SELECT count(*) FROM d) > $6 THEN (SELECT max(id) FROM ds)
                      ELSE greatest(mc.direct_low, (SELECT id FROM top)) END,
    channel_low = CASE WHEN NOT $5::boolean THEN mc.channel_low
                       WHEN (SELECT count(*) FROM c) > $6 THEN (SELECT max(id) FROM cs)
                       ELSE greatest(mc.channel_low, (SELECT id FROM top)) END
  WHERE mc.run_id = $1 AND mc.agent = $2
),
logged AS (
  INSERT INTO colony.events (run_id, agent, kind, data)
  SELECT $1, $2, 'message.delivered', jsonb_build_object(
    'ids', jsonb_agg(x.id ORDER BY x.id), 'via', $7::text,
    -- The texts too, so a recovered agent's conversation gets back the messages injected into it.
    'messages', jsonb_agg(jsonb_build_object('id', x.id, 'from', x.sender, 'text', x.text) ORDER BY x.id))
  FROM (SELECT id, sender, text FROM ds UNION ALL SELECT id, sender, text FROM cs) x
  HAVING count(*) > 0
)
SELECT x.box, x.id, x.sender, x.recipient, x.channel, x.text, ${isoText('x.created_at')} AS created_at,
       (SELECT count(*) FROM d) AS nd, (SELECT count(*) FROM c) AS nc
FROM (SELECT 1) one
LEFT JOIN (SELECT 'd' AS box, * FROM ds UNION ALL SELECT 'c' AS box, * FROM cs) x ON true
ORDER BY x.id`;

const HAS_UNREAD_SQL = `
WITH cur AS (
  SELECT coalesce((SELECT direct_low FROM colony.message_cursors WHERE run_id = $1 AND agent = $2), 0) AS dl,
         coalesce((SELECT channel_low FROM colony.message_cursors WHERE run_id = $1 AND agent = $2), 0) AS cl
)
SELECT EXISTS (SELECT 1 FROM colony.messages m, cur WHERE m.run_id = $1 AND m.recipient = $2 AND m.id > cur.dl)
    OR EXISTS (SELECT 1 FROM colony.messages m, cur
               WHERE m.run_id = $1 AND m.channel IS NOT NULL AND m.id > cur.cl AND m.sender <> $2
                 AND (m.channel = '${ALL_CHANNEL}' OR EXISTS (
                   SELECT 1 FROM colony.channel_members cm
                   WHERE cm.run_id = $1 AND cm.agent = $2 AND cm.channel = m.channel AND m.id > cm.joined_after)))
  AS unread`;

// Planned once per connection (store/prepared.ts): run for every agent's first read and each check.
const READ_STATEMENT = prepared(READ_SQL);
const HAS_UNREAD_STATEMENT = prepared(HAS_UNREAD_SQL);
// Creates the agent's cursor row, or locks it: concurrent reads of one agent take turns.
const CURSOR_STATEMENT = prepared(
  `INSERT INTO colony.message_cursors AS mc (run_id, agent) VALUES ($1, $2)
   ON CONFLICT (run_id, agent) DO UPDATE SET direct_low = mc.direct_low
   RETURNING direct_low, channel_low`,
);

interface ReadRow {
  box: 'd' | 'c' | null;
  id: string | null;
  sender: string;
  recipient: string | null;
  channel: string | null;
  text: string;
  created_at: string;
  nd: string;
  nc: string;
}

export function validateSend(input: SendInput): Result<{ to: string | null; channel: string | null }> {
  const to = input.to == null || input.to.trim() === '' ? null : input.to.trim();
  let channel = input.channel == null || input.channel.trim() === '' ? null : input.channel.trim();
  if (to !== null && channel !== null) {
    return { ok: false, error: 'give either to (a direct message) or channel, not both' };
  }
  if (to === null && channel === null) channel = ALL_CHANNEL;
  if (channel !== null && !CHANNEL_NAME.test(channel)) {
    return {
      ok: false,
      error: `channel "${channel}" is not a valid name (letters, digits, . _ -; up to 64)`,
    };
  }
  if (to !== null && to === input.from)
    return { ok: false, error: 'you cannot send a direct message to yourself' };
  if (input.from.trim() === '') return { ok: false, error: 'sender is empty' };
  if (input.text.trim() === '') return { ok: false, error: 'text is empty' };
  if (input.text.length > MAX_MESSAGE_CHARS) {
    return { ok: false, error: `text is ${input.text.length} characters; the limit is ${MAX_MESSAGE_CHARS}` };
  }
  return { ok: true, value: { to, channel } };
}

export class MessageService {
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly listener: NotifyListener,
  ) {}

  async send(input: SendInput): Promise<Result<CoordMessage>> {
    const valid = validateSend(input);
    if (!valid.ok) return valid;
    const { to, channel } = valid.value;
    const joins = channel !== null && channel !== ALL_CHANNEL && input.from !== USER_SENDER;
    try {
      const res = await this.pool.query<{ id: string; created_at: string }>(SEND_SQL, [
        input.runId,
        input.from,
        to,
        channel,
        input.text,
        // The event's agent is the sending agent; messages from the user are run-level (null).
        input.from === USER_SENDER ? null : input.from,
        joins,
      ]);
      const row = res.rows[0];
      if (!row) return { ok: false, error: 'messages: the database returned no row' };
      const id = Number(row.id);
      // Committed: tell this process's waiters now rather than when our own NOTIFY comes back.
      const notice: MessageNotice = { r: input.runId, i: id, t: to, c: channel, f: input.from };
      this.listener.noteMessage(notice);
      return {
        ok: true,
        value: {
          id,
          runId: input.runId,
          from: input.from,
          to,
          channel,
          text: input.text,
          createdAt: row.created_at,
        },
      };
    } catch (err) {
      return { ok: false, error: `messages: send failed: ${errorText(err)}` };
    }
  }

  /** Joins a named channel: the agent receives its messages sent from now on. */
  async join(runId: string, agent: string, channel: string): Promise<Result<void>> {
    if (!CHANNEL_NAME.test(channel)) return { ok: false, error: `channel "${channel}" is not a valid name` };
    if (channel === ALL_CHANNEL) return { ok: true, value: undefined };
    try {
      await this.pool.query(
        `INSERT INTO colony.channel_members (run_id, agent, channel, joined_after)
         SELECT $1, $2, $3, coalesce((SELECT last_id FROM colony.message_heads WHERE run_id = $1), 0)
         ON CONFLICT DO NOTHING`,
        [runId, agent, channel],
      );
      return { ok: true, value: undefined };
    } catch (err) {
      return { ok: false, error: `messages: join failed: ${errorText(err)}` };
    }
  }

  /** The agents that joined a named channel of a run (`all` has no members: it reaches everyone). */
  async channelMembers(runId: string, channel: string): Promise<Result<string[]>> {
    try {
      const res = await this.pool.query<{ agent: string }>(
        'SELECT agent FROM colony.channel_members WHERE run_id = $1 AND channel = $2 ORDER BY agent',
        [runId, channel],
      );
      return { ok: true, value: res.rows.map((r) => r.agent) };
    } catch (err) {
      return { ok: false, error: `messages: members failed: ${errorText(err)}` };
    }
  }

  /** Unread direct and channel messages, marked read (and logged as delivered via `via`). */
  read(runId: string, agent: string, via: Delivery = 'message_read'): Promise<Result<MessageReadResult>> {
    this.listener.beforeDirectCheck(runId, agent);
    return this.take(runId, agent, true, via);
  }

  /**
   * Unread direct messages only, marked read. Cheap when the listener knows nothing arrived: no query.
   */
  async takeDirect(
    runId: string,
    agent: string,
    via: Delivery = 'interrupt',
  ): Promise<Result<CoordMessage[]>> {
    await this.listener.ready();
    if (!this.listener.mayHaveDirect(runId, agent)) return { ok: true, value: [] };
    this.listener.beforeDirectCheck(runId, agent);
    const result = await this.take(runId, agent, false, via);
    if (!result.ok) return result;
    return { ok: true, value: result.value.direct };
  }

  private async take(
    runId: string,
    agent: string,
    withChannels: boolean,
    via: Delivery,
  ): Promise<Result<MessageReadResult>> {
    try {
      const rows = await inTransaction(
        this.pool,
        async (client) => {
          const cursor = await client.query<{ direct_low: string; channel_low: string }>({
            ...CURSOR_STATEMENT,
            values: [runId, agent],
          });
          const cur = cursor.rows[0];
          const res = await client.query<ReadRow>({
            ...READ_STATEMENT,
            values: [
              runId,
              agent,
              cur?.direct_low ?? '0',
              cur?.channel_low ?? '0',
              withChannels,
              MAX_MESSAGES_PER_READ,
              via,
            ],
          });
          return res.rows;
        },
        { asyncCommit: true },
      );
      const out: MessageReadResult = { direct: [], channel: [], more: false };
      for (const row of rows) {
        if (row.box === null || row.id === null) continue;
        const message: CoordMessage = {
          id: Number(row.id),
          runId,
          from: row.sender,
          to: row.recipient,
          channel: row.channel,
          text: row.text,
          createdAt: row.created_at,
        };
        (row.box === 'd' ? out.direct : out.channel).push(message);
      }
      const first = rows[0];
      out.more =
        Number(first?.nd ?? 0) > MAX_MESSAGES_PER_READ || Number(first?.nc ?? 0) > MAX_MESSAGES_PER_READ;
      // More direct messages are waiting: the next check must query again.
      if (Number(first?.nd ?? 0) > MAX_MESSAGES_PER_READ) this.listener.forget(runId, agent);
      return { ok: true, value: out };
    } catch (err) {
      this.listener.forget(runId, agent);
      return { ok: false, error: `messages: read failed: ${errorText(err)}` };
    }
  }

  /** Whether any direct or channel message is unread for this agent (one query). */
  async hasUnread(runId: string, agent: string): Promise<Result<boolean>> {
    try {
      const res = await this.pool.query<{ unread: boolean }>({
        ...HAS_UNREAD_STATEMENT,
        values: [runId, agent],
      });
      return { ok: true, value: res.rows[0]?.unread === true };
    } catch (err) {
      return { ok: false, error: `messages: ${errorText(err)}` };
    }
  }

  /**
   * For an idle agent: resolves `message` as soon as a message is unread for it (at once if one
   * already is), woken by NOTIFY — no polling while the listener is up. While it is down (connection
   * lost), re-checks every second until it is back.
   */
  async waitForMessage(
    runId: string,
    agent: string,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<WaitOutcome> {
    await this.listener.ready();
    const deadline = options.timeoutMs === undefined ? null : performance.now() + options.timeoutMs;
    for (;;) {
      if (this.closed) return 'closed';
      if (options.signal?.aborted) return 'aborted';
      let wake = () => {};
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      // Register before checking, so a message committed between the check and the wait still wakes us.
      const off = this.listener.wait(runId, agent, wake);
      try {
        const unread = await this.hasUnread(runId, agent);
        if (unread.ok && unread.value) return 'message';
        const left = deadline === null ? null : deadline - performance.now();
        if (left !== null && left <= 0) return 'timeout';
        const waitMs = this.listener.isUp && unread.ok ? left : Math.min(left ?? 1000, 1000);
        const outcome = await waitFor(woken, options.signal, waitMs);
        if (outcome === 'aborted') return 'aborted';
      } finally {
        off();
      }
    }
  }

  close(): void {
    this.closed = true;
  }
}

/** Waits for `woken`, the signal or `ms` (null = no timeout). */
function waitFor(
  woken: Promise<void>,
  signal: AbortSignal | undefined,
  ms: number | null,
): Promise<'woken' | 'aborted' | 'timeout'> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | null = null;
    const onAbort = () => done('aborted');
    const done = (outcome: 'woken' | 'aborted' | 'timeout') => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    if (signal?.aborted) return done('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (ms !== null) timer = setTimeout(() => done('timeout'), Math.max(0, ms));
    void woken.then(() => done('woken'));
  });
}
