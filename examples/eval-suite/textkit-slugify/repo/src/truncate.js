/**
 * `text` cut to at most `max` characters, ending with `ellipsis` when it was cut. Text that fits is
 * returned as it is.
 * @param {string} text
 * @param {number} max
 * @param {string} [ellipsis]
 * @returns {string}
 */
export function truncate(text, max, ellipsis = '…') {
  if (text.length <= max) return text;
  if (max <= ellipsis.length) return ellipsis.slice(0, max);
  return text.slice(0, max - ellipsis.length).trimEnd() + ellipsis;
}
