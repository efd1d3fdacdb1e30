import { isLoopbackHost } from '../../server/access.js';
import { loadOrCreateToken, SSE_DEFAULTS, startServer } from '../../server/index.js';
import { DATABASE_WAIT_MS } from '../../store/database-away.js';
import { numberFlag, parseFlags, UsageError } from '../args.js';
import { CliFailure, withStore } from '../store-access.js';
import { autoResumeOff, startSupervision } from '../supervision.js';

export const SERVE_HELP = `colony serve [--port 7420] [--host 127.0.0.1] [--token-for-reads] [--max-streams ${SSE_DEFAULTS.maxConnections}]

Starts the dashboard and its JSON API (docs/dashboard.md) until Ctrl-C. Prints the dashboard's URL
with the server token in its fragment (#token=…): open that URL to be able to start runs, send
messages, approve merge requests and stop runs from the page (a run started there is a colony run
process with this server's environment, minus the token; its output in $COLONY_HOME/serve/). Reading is open on a loopback host; every action needs
the token; on any other host (--host 0.0.0.0) every request needs it. The token lives in
$COLONY_HOME/server-token (mode 0600).

  --token-for-reads   every API read and the live event stream need the token too, also on loopback
                      (the page itself still loads; it uses the token from the printed URL)
  --max-streams N     live event streams open at once (default ${SSE_DEFAULTS.maxConnections}); one more is answered
                      503 with Retry-After
  --no-auto-resume    do not resume, on its own, a run whose process died (by default the server
                      does, as colony supervise does: docs/recovery.md; COLONY_AUTO_RESUME=off too)`;

export async function serveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      'token-for-reads': { type: 'boolean' },
      'max-streams': { type: 'string' },
      'no-auto-resume': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'serve',
  );
  if (values.help) {
    process.stdout.write(`${SERVE_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`serve: unexpected argument "${positionals[0]}"`);
  const port = values.port === '0' ? 0 : (numberFlag(values.port, 'port', 'int') ?? 7420);
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  const host = values.host ?? '127.0.0.1';
  const tokenForReads = values['token-for-reads'] === true;
  const maxStreams = numberFlag(values['max-streams'], 'max-streams', 'int');
  return withStore(
    async (store) => {
      // Listen for Ctrl-C / SIGTERM before anything is announced: a caller that reads the URL and
      // stops the server at once must get a clean exit, not the default signal death.
      const stopRequested = new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      const token = loadOrCreateToken(store.home);
      if (!token.ok) throw new CliFailure(token.error);
      const started = await startServer({
        store,
        token: token.token,
        host,
        port,
        tokenForReads,
        ...(maxStreams !== undefined ? { sse: { maxConnections: maxStreams } } : {}),
      });
      if (!started.ok) throw new CliFailure(started.error);
      const { server } = started;
      const browseHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
      const base = server.url.replace(host.includes(':') ? `[${host}]` : host, browseHost);
      const reading = !isLoopbackHost(host)
        ? 'needs the token: this host is not loopback'
        : tokenForReads
          ? 'needs the token (--token-for-reads)'
          : 'is open on this loopback address';
      process.stdout.write(
        `Colony dashboard: ${base}/#token=${token.token}\n` +
          `  (reading ${reading}; actions need the token, kept in ${token.path})\n`,
      );
      const supervisor =
        values['no-auto-resume'] || autoResumeOff(process.env)
          ? null
          : startSupervision({ store, role: 'serve', env: process.env });
      await stopRequested;
      await supervisor?.stop();
      await server.close();
      return 0;
      // A dashboard started before its (external) database answers waits for it, as a worker does.
    },
    { waitMs: DATABASE_WAIT_MS },
  );
}
