import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render, renderTokens, tokenize } from '../../src/template/index.js';

test('tokens: tokenize marks {{{x}}} raw and {{x}} not raw', () => {
  assert.deepEqual(tokenize('a{{x}}b{{{y.z}}}'), [
    { type: 'text', value: 'a' },
    { type: 'var', path: ['x'], raw: false },
    { type: 'text', value: 'b' },
    { type: 'var', path: ['y', 'z'], raw: true },
  ]);
});

test('tokens: renderTokens escapes a token that is not raw', () => {
  assert.equal(renderTokens([{ type: 'var', path: ['x'], raw: false }], { x: '<b>' }), '&lt;b&gt;');
});

test('tokens: renderTokens inserts a raw token as it is', () => {
  assert.equal(renderTokens([{ type: 'var', path: ['x'], raw: true }], { x: '<b>' }), '<b>');
});

test('tokens: render escapes {{x}}', () => {
  assert.equal(render('<p>{{x}}</p>', { x: '<i>&' }), '<p>&lt;i&gt;&amp;</p>');
});

test('tokens: render leaves {{{x}}} as it is', () => {
  assert.equal(render('<p>{{{x}}}</p>', { x: '<i>' }), '<p><i></p>');
});
