import { escapeHtml } from '../escape.js';

/**
 * @param {import('./tokens.js').Token[]} tokens
 * @param {Record<string, unknown>} data
 * @returns {string}
 */
export function renderTokens(tokens, data) {
  let out = '';
  for (const token of tokens) {
    if (token.type === 'text') {
      out += token.value;
      continue;
    }
    const value = lookup(data, token.path);
    const text = value === undefined || value === null ? '' : String(value);
    out += token.raw ? text : escapeHtml(text);
  }
  return out;
}

function lookup(data, path) {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = value[key];
  }
  return value;
}
