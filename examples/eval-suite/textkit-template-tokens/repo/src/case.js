/**
 * The words of an identifier or a phrase: split at spaces, dashes, underscores and lower-to-upper
 * case changes.
 * @param {string} text
 * @returns {string[]}
 */
export function words(text) {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** @param {string} text */
export function camelCase(text) {
  return words(text)
    .map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1)))
    .join('');
}

/** @param {string} text */
export function snakeCase(text) {
  return words(text).join('_');
}
