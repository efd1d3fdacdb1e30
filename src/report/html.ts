/** Small HTML building helpers for the report (strings, escaped). */
import { esc } from '../view/svg/xml.js';

export { esc };

export function table(
  headers: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string>>,
  cls = '',
): string {
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('');
  return `<table${cls ? ` class="${cls}"` : ''}><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** Key/value rows (values are HTML). */
export function facts(rows: ReadonlyArray<[string, string]>): string {
  return `<table class="facts"><tbody>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join('')}</tbody></table>`;
}

export function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${esc(title)}</h2>${body}</section>`;
}

/** At most `max` items, with a note on how many were left out (a 100k-event run stays readable). */
export function capped<T>(items: readonly T[], max: number): { shown: readonly T[]; note: string } {
  if (items.length <= max) return { shown: items, note: '' };
  return { shown: items.slice(-max), note: `<p class="note">showing the last ${max} of ${items.length}</p>` };
}
