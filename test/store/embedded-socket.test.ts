import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { embeddedPaths } from '../../src/store/embedded-paths.js';
import { resolveHome } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';

describe.skipIf(Boolean(process.env.COLONY_DATABASE_URL))('embedded server over its unix socket', () => {
  it('hands out URLs through the socket in the home folder; connections use it, not TCP', async () => {
    const store = await openTestStore();
    try {
      const socket = embeddedPaths(resolveHome()).socket;
      expect(new URL(store.superuserUrl!).searchParams.get('host')).toBe(socket);
      // Only the server's user may enter the socket's folder.
      expect(statSync(socket).mode & 0o777).toBe(0o700);
      // A unix-socket connection has no server address; over TCP it would be 127.0.0.1.
      const app = await store.pool.query<{ addr: string | null; who: string }>(
        'SELECT inet_server_addr()::text AS addr, current_user AS who',
      );
      expect(app.rows[0]).toEqual({ addr: null, who: 'colony_app' });
    } finally {
      await store.close();
    }
  });
});
