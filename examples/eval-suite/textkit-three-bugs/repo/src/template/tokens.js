/**
 * The tokens of a template, as `tokenize` returns them and `renderTokens` reads them. Code outside
 * this folder may build tokens by hand or rewrite them, so both sides must keep to this shape:
 *
 * - `{ type: 'text', value: string }`: text copied as it is;
 * - `{ type: 'var', path: string[], raw: boolean }`: a value looked up by its dotted path; HTML-escaped
 *   when `raw` is false (`{{a.b}}`), inserted as it is when `raw` is true (`{{{a.b}}}`).
 *
 * @typedef {{ type: 'text', value: string } | { type: 'var', path: string[], raw: boolean }} Token
 */
export {};
