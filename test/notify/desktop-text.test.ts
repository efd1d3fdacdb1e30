import { describe, expect, it } from 'vitest';
import { desktopText } from '../../src/notify/desktop-text.js';

describe('desktop text', () => {
  it('turns controls and bidi marks into spaces, markup into entities, and caps the length', () => {
    expect(desktopText('a\u001b[31mred\r\nb\u009b\u202eevil\u0000 <b>&</b>', 100)).toBe(
      'a [31mred b evil &lt;b&gt;&amp;&lt;/b&gt;',
    );
    expect(desktopText('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
    // Shell syntax is just text: it is never given to a shell.
    expect(desktopText('$(touch /tmp/x) `id`', 100)).toBe('$(touch /tmp/x) `id`');
  });
});
