/** Where the owner of a fleet run serves its hub: `HOST:PORT` from `--hub-listen`. */

/** HOST:PORT (IPv6 in brackets) → parts, or null. */
export function parseListen(value: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):(\d{1,5})$/.exec(value);
  if (!match?.[1] || !match[2]) return null;
  const port = Number(match[2]);
  if (port > 65535) return null;
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}
