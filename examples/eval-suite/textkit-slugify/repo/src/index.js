export { camelCase, snakeCase, words } from './case.js';
export { escapeHtml } from './escape.js';
export { slugify } from './slugify.js';
export { render, renderTokens, tokenize } from './template/index.js';
export { truncate } from './truncate.js';
export { wrap } from './wrap.js';
