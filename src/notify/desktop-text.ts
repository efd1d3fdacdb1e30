/**
 * Text for a desktop notification, made inert: notification servers may render the body as markup
 * (`<b>`, `<a href>`, `&amp;`) and some pass controls on, so every control character (C0 with
 * newline and tab, DEL, C1) and bidi mark becomes a space, `&`, `<` and `>` become entities, and the
 * text is capped. Pure.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const MARKUP: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

export function desktopText(text: string, maxChars: number): string {
  const flat = text.replace(CONTROLS, ' ').replace(/ {2,}/g, ' ').trim();
  const cut = flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
  return cut.replace(/[&<>]/g, (c) => MARKUP[c] ?? c);
}
