/** Building SVG as strings (no DOM, so it runs in Node and in the browser alike). */

export function esc(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Rounds to one decimal: keeps SVG text small without visible loss. */
export function n(value: number): string {
  return String(Math.round(value * 10) / 10);
}

export interface Frame {
  chart: string;
  title: string;
  width: number;
  height: number;
}

export function frame(f: Frame, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${f.width} ${f.height}" width="${f.width}" height="${f.height}" role="img" data-chart="${esc(f.chart)}" font-family="system-ui, sans-serif" font-size="11">` +
    `<title>${esc(f.title)}</title><rect width="100%" height="100%" fill="#fff"/>` +
    `<text x="8" y="16" font-size="13" font-weight="600" fill="#222">${esc(f.title)}</text>${body}</svg>`
  );
}

export function empty(f: Frame, message: string): string {
  return frame(
    f,
    `<text x="${f.width / 2}" y="${f.height / 2}" text-anchor="middle" fill="#888">${esc(message)}</text>`,
  );
}
