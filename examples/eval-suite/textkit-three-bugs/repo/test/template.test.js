import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, render } from '../src/index.js';

test('escape: escapes the five HTML characters', () => {
  assert.equal(escapeHtml('<a href="x">\'&\'</a>'), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});

test('template: fills in values by dotted path', () => {
  assert.equal(render('Hi {{user.name}}!', { user: { name: 'Ann' } }), 'Hi Ann!');
});

test('template: renders a missing value as nothing', () => {
  assert.equal(render('[{{nope}}]', {}), '[]');
});
