/**
 * Mutual exclusion for a run's integration: only one candidate is built, verified and landed at a
 * time, and MR ids are allocated one at a time, across every queue instance of the run.
 *
 * `localIntegrationLock()` covers one process. `pgIntegrationLock(connection)` takes a session-level
 * Postgres advisory lock per (run, purpose) on a dedicated connection per purpose; waiting is a
 * blocking `pg_advisory_lock` (no polling), and a killed process's locks vanish with its connection.
 */
import pg from 'pg';

export type LockPurpose = 'integrate' | 'ids';

export interface IntegrationLock {
  withLock<T>(runId: string, purpose: LockPurpose, task: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A promise chain per key: tasks on the same key run one after another. */
class Mutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

export function localIntegrationLock(): IntegrationLock {
  const mutex = new Mutex();
  return {
    withLock: (runId, purpose, task) => mutex.run(`${runId}\0${purpose}`, task),
    close: async () => {},
  };
}

const KEY_SQL = `hashtextextended('colony.integration:' || $1 || ':' || $2, 0)`;

export function pgIntegrationLock(connection: pg.ClientConfig): IntegrationLock {
  const mutex = new Mutex();
  const clients = new Map<string, pg.Client>();

  const clientFor = async (key: string): Promise<pg.Client> => {
    const existing = clients.get(key);
    if (existing) return existing;
    const client = new pg.Client(connection);
    // A dropped connection loses the lock; the next use reconnects.
    client.on('error', () => clients.delete(key));
    client.on('end', () => clients.delete(key));
    await client.connect();
    clients.set(key, client);
    return client;
  };

  return {
    withLock(runId, purpose, task) {
      const key = `${runId}\0${purpose}`;
      // In-process first, so one connection never waits on a lock its own session holds.
      return mutex.run(key, async () => {
        const client = await clientFor(key);
        await client.query(`SELECT pg_advisory_lock(${KEY_SQL})`, [runId, purpose]);
        try {
          return await task();
        } finally {
          await client.query(`SELECT pg_advisory_unlock(${KEY_SQL})`, [runId, purpose]).catch(() => {
            // The connection is gone, and the lock with it.
          });
        }
      });
    },
    async close() {
      const all = [...clients.values()];
      clients.clear();
      await Promise.all(all.map((client) => client.end().catch(() => {})));
    },
  };
}
