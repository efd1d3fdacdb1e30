/**
 * The dashboard's files: the page shell and stylesheet from src/dashboard/static, and the compiled
 * browser modules from dist/src/{dashboard,view} (so the dashboard and `colony report` draw with the
 * same chart code). Only known folders and extensions are served; no path can leave them.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join, normalize, sep } from 'node:path';
import { packageRoot } from '../core/package-root.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Folders under dist/src whose compiled modules the browser may load. */
const MODULE_DIRS = new Set(['dashboard', 'view']);

export interface StaticFile {
  path: string;
  type: string;
}

/** Maps a URL path to a file on disk, or null. `/` and page routes get the shell (index.html). */
export function resolveStatic(urlPath: string, root = packageRoot()): StaticFile | null {
  const staticDir = join(root, 'src', 'dashboard', 'static');
  if (urlPath === '/' || urlPath.startsWith('/runs/') || urlPath === '/runs')
    return { path: join(staticDir, 'index.html'), type: TYPES['.html'] ?? '' };
  const inside = (base: string, rel: string): string | null => {
    const full = normalize(join(base, rel));
    return full.startsWith(base + sep) ? full : null;
  };
  const ext = /\.[a-z]+$/.exec(urlPath)?.[0] ?? '';
  const type = TYPES[ext];
  if (!type) return null;
  if (urlPath.startsWith('/static/')) {
    const path = inside(staticDir, decodeURIComponent(urlPath.slice('/static/'.length)));
    return path ? { path, type } : null;
  }
  const m = /^\/assets\/([a-z-]+)\/(.+)$/.exec(urlPath);
  if (m?.[1] && m[2] && MODULE_DIRS.has(m[1]) && (ext === '.js' || ext === '.map')) {
    const base = join(root, 'dist', 'src', m[1]);
    const path = inside(base, decodeURIComponent(m[2]));
    return path ? { path, type } : null;
  }
  return null;
}

export async function serveStatic(res: ServerResponse, file: StaticFile, head: boolean): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(file.path);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(
      file.path.includes(`${sep}dist${sep}`)
        ? 'not built: run `npm run build` (the dashboard modules are compiled into dist/)\n'
        : 'not found\n',
    );
    return;
  }
  res.writeHead(200, {
    'content-type': file.type,
    'content-length': body.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...(file.type.startsWith('text/html')
      ? {
          'content-security-policy':
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
        }
      : {}),
  });
  res.end(head ? undefined : body);
}
