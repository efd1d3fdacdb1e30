/**
 * How a fleet run's owner served its hub and merge requests to workers, as summaries show it: over
 * TLS, or over plain HTTP off loopback because a person passed --insecure-http (src/fleet/tls.ts).
 * Read from run.started's config (the run spec's `fleet`); null for a run without workers.
 */
export type FleetTransportView = 'tls' | 'http' | 'insecure-http';

export function fleetTransportView(config: Record<string, unknown> | undefined): FleetTransportView | null {
  const fleet = config?.fleet;
  if (!fleet || typeof fleet !== 'object') return null;
  const f = fleet as { tls?: unknown; insecureHttp?: unknown };
  if (f.tls) return 'tls';
  return f.insecureHttp === true ? 'insecure-http' : 'http';
}

/** One summary line, or null when there is nothing to say (plain HTTP on loopback). */
export function fleetTransportLine(view: FleetTransportView | null): string | null {
  if (view === 'tls') return 'fleet: hub and merge requests served to workers over TLS';
  if (view === 'insecure-http')
    return "warning: fleet over plain HTTP (--insecure-http): agents' tokens and code crossed the network unencrypted";
  return null;
}
