/**
 * A run's goal from an issue: its title, then its text (what the person who filed it asked for).
 * Issue text is anyone's: NUL bytes (which no process argument may hold) are taken out and the text is
 * clipped, so no issue can keep its run from starting.
 */
import type { ForgeIssue } from '../forge/index.js';

/** Issue text beyond this is cut (a goal is a prompt, not a document; it is passed as one argument). */
const MAX_BODY = 20_000;
const MAX_TITLE = 1_000;

export function goalOf(issue: ForgeIssue): string {
  const title = clip(clean(issue.title).trim(), MAX_TITLE);
  const body = clip(clean(issue.body).trim(), MAX_BODY);
  return body === '' ? title : `${title}\n\n${body}`;
}

function clean(text: string): string {
  return text.replaceAll('\0', '');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… cut]` : text;
}
