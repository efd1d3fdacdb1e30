/**
 * Text an agent controls (model and tool text, notes, file names, agent names, error messages that
 * quote them), made safe to print on a terminal: every control character but newline and tab is
 * shown, not obeyed. An escape sequence (colours, cursor moves, a screen clear, an OSC 52 clipboard
 * write, a title change), a carriage return that overwrites the line, an 8-bit C1 control or a bidi
 * override that reorders what the user reads then prints as visible text: C0 controls and DEL as
 * their Unicode control pictures (ESC as ␛, CR as ␍), C1 and the bidi controls as `\u009b`.
 * Pure and browser-safe; Colony's own styling, if any, is added after.
 */

/** C0 but tab and newline, DEL, C1, and the bidi marks, embeddings, overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same, with newline and tab: for a line that must stay one line (a redrawn progress block). */
const UNSAFE_IN_LINE = new RegExp(`${UNSAFE.source.slice(0, -1)}\\t\\n]`, 'g');
/**
 * What JSON.stringify leaves raw inside strings that a terminal may still act on (it escapes C0 and
 * nothing above), with the line and paragraph separators.
 */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** terminalText, with newline and tab shown too (␊, ␉). */
export function terminalLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, visible);
}

/**
 * JSON for a terminal (`--json` output): JSON.stringify, with the characters it leaves raw written
 * as `\u` escapes. They can only stand inside strings, so the text parses back to the same value.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(RAW_IN_JSON, unicodeEscape);
}

function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return unicodeEscape(c);
}

function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
