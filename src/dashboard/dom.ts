/// <reference lib="dom" />
/** Tiny DOM helpers (no framework): element builder, formatting. */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children)
    if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}

export function clear(el: Element, ...children: Child[]): void {
  el.replaceChildren(
    ...children
      .filter((c): c is Node | string => c !== null && c !== undefined && c !== false)
      .map((c) => (typeof c === 'number' ? String(c) : c)),
  );
}

export function ms(duration: number): string {
  if (!Number.isFinite(duration) || duration < 0) return '–';
  const s = Math.floor(duration / 1000);
  if (s < 60) return `${(duration / 1000).toFixed(s < 10 ? 1 : 0)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return value < 0.01 && value > 0 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

export function count(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return '–';
  return `${ms(now - Date.parse(iso))} ago`;
}

export function clock(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour12: false });
}

export function toast(message: string, kind: 'ok' | 'error' = 'ok'): void {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = message;
  el.className = `toast ${kind}`;
  el.hidden = false;
  window.clearTimeout(Number(el.dataset.timer ?? 0));
  el.dataset.timer = String(window.setTimeout(() => (el.hidden = true), 4000));
}
