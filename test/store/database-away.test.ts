/**
 * What counts as "the database is away" (a restart, a dropped connection), including when the error
 * reached us only as text: a worker that misreads a restart as a real failure ends an agent's session
 * unstarted for good (issue 30's soak: a peer never placed after Postgres restarted under a resume).
 */
import { describe, expect, it } from 'vitest';
import { databaseAway, describeDatabaseError, whileDatabaseAway } from '../../src/store/database-away.js';

/** An error as pg gives one from the server: a message and a SQLSTATE. */
function serverError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('databaseAway', () => {
  it('knows every phase of a restart, as an error and as text', () => {
    const restart = [
      serverError('terminating connection due to administrator command', '57P01'),
      serverError('terminating connection because of crash of another server process', '57P02'),
      serverError('the database system is shutting down', '57P03'),
      serverError('the database system is starting up', '57P03'),
      serverError('the database system is not yet accepting connections', '57P03'),
      serverError('the database system is in recovery mode', '57P03'),
      new Error('connect ECONNREFUSED 127.0.0.1:5432'),
      new Error('Connection terminated unexpectedly'),
      new Error('Client was closed and is not queryable'),
      new Error('read ECONNRESET'),
    ];
    for (const error of restart) {
      expect(databaseAway(error), error.message).toBe(true);
      // A reason string built from it, as a session's end carries it.
      expect(
        databaseAway(`could not open run r-1 here: ${describeDatabaseError(error)}`),
        error.message,
      ).toBe(true);
    }
  });

  it('keeps the SQLSTATE when the words are not known: a server in another language still counts', () => {
    const localized = serverError('le système de bases de données se lance', '57P03');
    expect(databaseAway(localized)).toBe(true);
    expect(describeDatabaseError(localized)).toBe('le système de bases de données se lance (SQLSTATE 57P03)');
    expect(databaseAway(`event log: ${describeDatabaseError(localized)}`)).toBe(true);
  });

  it('does not take real failures for an outage', () => {
    const real = [
      serverError('password authentication failed for user "colony"', '28P01'),
      serverError('relation "colony.events" does not exist', '42P01'),
      serverError('duplicate key value violates unique constraint', '23505'),
      new Error('run r-1 is not a fleet run (no hub address was published for it)'),
    ];
    for (const error of real) {
      expect(databaseAway(error), error.message).toBe(false);
      expect(databaseAway(describeDatabaseError(error)), error.message).toBe(false);
    }
  });
});

describe('whileDatabaseAway', () => {
  it('tries again through an outage and returns the first success', async () => {
    let calls = 0;
    const value = await whileDatabaseAway(async () => {
      calls++;
      if (calls < 3) throw serverError('the database system is not yet accepting connections', '57P03');
      return 'up';
    });
    expect(value).toBe('up');
    expect(calls).toBe(3);
  });

  it('gives up at once on a real failure', async () => {
    let calls = 0;
    await expect(
      whileDatabaseAway(async () => {
        calls++;
        throw serverError('permission denied for table runs', '42501');
      }),
    ).rejects.toThrow('permission denied');
    expect(calls).toBe(1);
  });
});
