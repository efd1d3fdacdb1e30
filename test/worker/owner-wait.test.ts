/**
 * Which failures of a worker's calls to the run's owner mean "the owner is away" (waited for) and
 * which are answers (returned at once): git's and fetch's own words, as seen when an owner is killed
 * mid-push (curl 18, the message that lost a merge in a fleet run whose owner was killed).
 */
import { describe, expect, it } from 'vitest';
import { ok } from '../../src/lang/result.js';
import { ownerAway, whileOwnerAway } from '../../src/worker/owner-wait.js';

describe('ownerAway', () => {
  it('waits for an owner that is gone or mid-restart, not for its answers', () => {
    for (const away of [
      "fatal: unable to access 'http://127.0.0.1:44501/git/r/hub.git/': transfer closed with outstanding read data remaining",
      "fatal: unable to access 'http://h/': Failed to connect to 127.0.0.1 port 44501 after 0 ms: Couldn't connect to server",
      'error: RPC failed; curl 52 Empty reply from server\nfatal: the remote end hung up unexpectedly',
      "fatal: unable to access 'http://h/': Recv failure: Connection reset by peer",
      "fatal: Authentication failed for 'http://h/git/r/hub.git/'",
      "the run's owner could not be reached: fetch failed",
      'returned error: 401: the token is not valid',
    ])
      expect(ownerAway(away), away).toBe(true);
    for (const answer of [
      "fatal: unable to access 'http://h/': The requested URL returned error: 403",
      'returned error: 403: the session of peer-1 was taken over (epoch 2, token 1)',
      ' ! [rejected]        agent/peer-1 -> agent/peer-1 (non-fast-forward)',
      'returned error: 400: commit must be a 40-hex commit id',
    ])
      expect(ownerAway(answer), answer).toBe(false);
  });

  it('tries again while the owner is away and returns its first answer', async () => {
    let calls = 0;
    const result = await whileOwnerAway(async () => {
      calls += 1;
      return calls < 3 ? { ok: false, error: 'fetch failed' } : ok('answered');
    });
    expect(result).toEqual(ok('answered'));
    expect(calls).toBe(3);
    const refused = await whileOwnerAway(async () => ({ ok: false, error: 'returned error: 403: fenced' }));
    expect(refused).toEqual({ ok: false, error: 'returned error: 403: fenced' });
  });
});
