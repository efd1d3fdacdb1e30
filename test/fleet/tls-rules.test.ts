/** Which fleet addresses may carry plain HTTP (src/fleet/tls.ts): loopback only, unless allowed. */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, plainHttpProblem } from '../../src/fleet/tls.js';

describe('plain HTTP in a fleet', () => {
  it('knows loopback addresses and names', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', 'LOCALHOST', 'w1.localhost'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '0.0.0.0',
      '10.0.0.1',
      '::',
      '128.0.0.1',
      'example.com',
      'localhost.example.com',
      '::ffff:10.0.0.1',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('allows https anywhere, http on loopback or when allowed, and nothing else', () => {
    expect(plainHttpProblem('https://10.0.0.1:7070', false, 'colony worker')).toBeNull();
    expect(plainHttpProblem('http://127.0.0.1:7070', false, 'colony worker')).toBeNull();
    expect(plainHttpProblem('http://10.0.0.1:7070', true, 'colony worker')).toBeNull();
    expect(plainHttpProblem('http://10.0.0.1:7070', false, 'colony worker')).toMatch(
      /^the fleet's hub http:\/\/10\.0\.0\.1:7070 is plain HTTP on a non-loopback address.*colony worker --insecure-http/,
    );
    expect(plainHttpProblem('ftp://10.0.0.1', true, 'colony worker')).toMatch(
      /neither http:\/\/ nor https:\/\//,
    );
    expect(plainHttpProblem('not a url', true, 'colony worker')).toMatch(/is not a URL/);
  });
});
