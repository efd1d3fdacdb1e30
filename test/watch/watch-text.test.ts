/**
 * The pure parts of `colony watch`: the pause after failures, the hint for a forge error, a run's goal
 * from an issue, and the comments (their markers; a run's reason only as code, never a mention or link).
 */
import { describe, expect, it } from 'vitest';
import {
  backoff,
  finishedComment,
  forgeErrorHint,
  goalOf,
  marker,
  startedComment,
} from '../../src/watch/index.js';

describe('watch backoff', () => {
  it('doubles up to the cap and starts again after a success', () => {
    const pause = backoff(1_000, 5_000);
    expect([pause.failed(), pause.failed(), pause.failed(), pause.failed(), pause.failed()]).toEqual([
      1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
    pause.succeeded();
    expect(pause.failed()).toBe(1_000);
  });

  it('says what a forge error means', () => {
    expect(forgeErrorHint('GET /repos/a/b → 401: Bad credentials', 'GITHUB_TOKEN')).toMatch(
      /refused the token: check GITHUB_TOKEN/,
    );
    expect(forgeErrorHint('GET /x → 429: slow down', 'T')).toMatch(/rate limited/);
    expect(forgeErrorHint('GET /x → 502: bad gateway', 'T')).toMatch(/failing/);
    expect(forgeErrorHint('GET /x: could not reach h: ECONNREFUSED', 'T')).toMatch(/did not answer/);
  });
});

describe('watch text', () => {
  it('makes the goal from the title and the text', () => {
    expect(goalOf({ number: 1, title: ' Fix it ', body: '', url: 'u' })).toBe('Fix it');
    expect(goalOf({ number: 1, title: 'Fix it', body: 'Details.\n', url: 'u' })).toBe('Fix it\n\nDetails.');
    expect(goalOf({ number: 1, title: 't', body: 'x'.repeat(30_000), url: 'u' }).length).toBeLessThan(20_100);
    // A NUL byte cannot be passed to a process: taken out, so the run can start.
    expect(goalOf({ number: 1, title: 'a\0b', body: 'c\0d', url: 'u' })).toBe('ab\n\ncd');
  });

  it('marks each comment with its run, and shows a run reason only as code', () => {
    expect(startedComment('r-abc-123456', 'solo')).toContain(marker('started', 'r-abc-123456'));
    const text = finishedComment('r-abc-123456', {
      status: 'failed',
      reason: 'verify failed @alice [x](https://evil) closes #3\n`',
      pullRequest: { url: 'https://forge/pull/9', draft: true },
      noPullRequest: null,
    });
    expect(text).toContain(marker('finished', 'r-abc-123456'));
    expect(text).toContain('**failed**');
    expect(text).toContain('Draft pull request: https://forge/pull/9');
    const reason = /\((`+) (.*) \1\)/.exec(text);
    expect(reason?.[2]).toContain('@alice [x](https://evil) closes #3');
    expect(text.split('\n')[0]).toContain('closes #3'); // the reason's newline does not end its line
  });
});
