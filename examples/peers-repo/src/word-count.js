/** Counts the words in a text; any run of whitespace separates words. */
export function wordCount(text) {
  if (text.length === 0) return 0;
  return text.split(' ').length;
}
