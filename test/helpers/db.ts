import pg from 'pg';
import { openStore, resolveHome, type Store, type StoreOptions } from '../../src/store/index.js';

/** Opens a store against the test run's COLONY_HOME (set by test/global-setup.ts). */
export function openTestStore(options: StoreOptions = {}): Promise<Store> {
  return openStore({ home: resolveHome(), quiet: true, ...options });
}

/** A superuser client for tests that must act outside the application role (embedded only). */
export async function superuserClient(store: Store): Promise<pg.Client> {
  if (!store.superuserUrl) throw new Error('superuser access needs the embedded server');
  const client = new pg.Client({ connectionString: store.superuserUrl });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** `url` with another database and/or user (the URL may carry `?host=` for a unix socket). */
export function databaseUrlWith(
  url: string,
  change: { database?: string; user?: string; password?: string },
): string {
  const u = new URL(url);
  if (change.database !== undefined) u.pathname = `/${change.database}`;
  if (change.user !== undefined) u.username = change.user;
  if (change.password !== undefined) u.password = change.password;
  return u.toString();
}

/** A run id unique to this test, so parallel test files never share a run. */
export function testRunId(label = 'test'): string {
  return `t-${label}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
