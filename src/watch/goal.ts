/** A run's goal from an issue: its title, then its text (what the person who filed it asked for). */
import type { ForgeIssue } from '../forge/index.js';

/** Issue text beyond this is cut (a goal is a prompt, not a document). */
const MAX_BODY = 20_000;

export function goalOf(issue: ForgeIssue): string {
  const body = issue.body.trim();
  const clipped = body.length > MAX_BODY ? `${body.slice(0, MAX_BODY)}\n[… cut]` : body;
  return clipped === '' ? issue.title.trim() : `${issue.title.trim()}\n\n${clipped}`;
}
