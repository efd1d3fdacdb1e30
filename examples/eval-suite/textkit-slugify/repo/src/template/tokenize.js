/**
 * @param {string} template
 * @returns {import('./tokens.js').Token[]}
 */
export function tokenize(template) {
  const tokens = [];
  const pattern = /\{\{\{\s*([\w.]+)\s*\}\}\}|\{\{\s*([\w.]+)\s*\}\}/g;
  let last = 0;
  for (const match of template.matchAll(pattern)) {
    if (match.index > last) tokens.push({ type: 'text', value: template.slice(last, match.index) });
    const raw = match[1] !== undefined;
    const path = (raw ? match[1] : match[2]).split('.');
    tokens.push({ type: 'var', path, raw });
    last = match.index + match[0].length;
  }
  if (last < template.length) tokens.push({ type: 'text', value: template.slice(last) });
  return tokens;
}
