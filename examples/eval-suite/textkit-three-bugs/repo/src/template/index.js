import { renderTokens } from './render.js';
import { tokenize } from './tokenize.js';

export { renderTokens, tokenize };

/**
 * Renders `{{path}}` (HTML-escaped) and `{{{path}}}` (as it is); a missing value renders as nothing.
 * @param {string} template
 * @param {Record<string, unknown>} data
 */
export function render(template, data) {
  return renderTokens(tokenize(template), data);
}
