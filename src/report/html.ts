/** Small HTML building helpers for the report (strings, escaped). */
import { esc } from '../view/svg/xml.js';

export { esc };

/**
 * The look every self-contained page shares (`colony report`, `eval report`, `plan --html`): header,
 * sections, fact and data tables, notes. A page adds its own rules after it (later rules win).
 */
export const PAGE_CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#222;background:#f6f7f9}
header{background:#1f2a37;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}
header .sub,header .goal{opacity:.8;margin-top:4px}
main{padding:8px 24px 48px;max-width:1100px}
section{background:#fff;border:1px solid #e3e6ea;border-radius:6px;padding:12px 16px;margin:16px 0}
h2{font-size:16px;margin:0 0 8px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eef0f2;vertical-align:top}
thead th{background:#f3f4f6}
table.facts th{width:240px;color:#555;font-weight:500}
.note{color:#666;font-size:12px}
`;

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
