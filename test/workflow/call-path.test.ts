/** Step-id segments and attempt agent names (pure functions). */
import { describe, expect, it } from 'vitest';
import { attemptAgentName, segment } from '../../src/workflow/call-path.js';

describe('step ids', () => {
  it('keeps safe names and hashes changed ones so they never collide', () => {
    expect(segment('explore')).toBe('explore');
    expect(segment('fix:src/a.js:3')).toMatch(/^fix-src-a-js-3-[0-9a-f]{6}$/);
    expect(segment('a b')).not.toBe(segment('a-b'));
    expect(attemptAgentName('explore/map-2/explorer', 1, false)).toBe('explore.map-2.explorer');
    expect(attemptAgentName('key/fix-x', 2, true)).toBe('key.fix-x+2+r');
  });
});
