import { describe, expect, it } from 'vitest';
import { parseDurationMs } from '../../src/core/duration.js';

describe('parseDurationMs', () => {
  it('parses units and combinations', () => {
    expect(parseDurationMs('7d')).toBe(7 * 86_400_000);
    expect(parseDurationMs('1h30m')).toBe(5_400_000);
    expect(parseDurationMs('0s')).toBe(0);
    expect(parseDurationMs('250ms')).toBe(250);
  });
  it('rejects anything else', () => {
    for (const bad of ['', '7', 'd', '7 days', '-1h', '1y']) expect(parseDurationMs(bad)).toBeNull();
  });
});
