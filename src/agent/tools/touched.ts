/** What a file tool's path touches of the checkout: that path, the whole tree for the root, nothing when refused. */
import type { Touched } from '../../tool/types.js';
import { resolveInside } from '../paths.js';

export function touchedPath(root: string, userPath: string): Exclude<Touched, { replaced: unknown }> {
  const resolved = resolveInside(root, userPath);
  if (!resolved.ok) return [];
  return resolved.rel === '.' ? 'all' : [resolved.rel];
}
