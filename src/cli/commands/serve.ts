import { isLoopbackHost } from '../../server/access.js';
import { loadOrCreateToken, startServer } from '../../server/index.js';
import { numberFlag, parseFlags, UsageError } from '../args.js';
import { CliFailure, withStore } from '../store-access.js';

export const SERVE_HELP = `colony serve [--port 7420] [--host 127.0.0.1]

Starts the dashboard and its JSON API (docs/dashboard.md) until Ctrl-C. Prints the dashboard's URL
with the server token in its fragment (#token=…): open that URL to be able to send messages, approve
merge requests and stop runs from the page. Reading is open on a loopback host; every action needs
the token; on any other host (--host 0.0.0.0) every request needs it. The token lives in
$COLONY_HOME/server-token (mode 0600).`;

export async function serveCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
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
  return withStore(async (store) => {
    // Listen for Ctrl-C / SIGTERM before anything is announced: a caller that reads the URL and
    // stops the server at once must get a clean exit, not the default signal death.
    const stopRequested = new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    const token = loadOrCreateToken(store.home);
    if (!token.ok) throw new CliFailure(token.error);
    const started = await startServer({ store, token: token.token, host, port });
    if (!started.ok) throw new CliFailure(started.error);
    const { server } = started;
    const browseHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
    const base = server.url.replace(host.includes(':') ? `[${host}]` : host, browseHost);
    process.stdout.write(
      `Colony dashboard: ${base}/#token=${token.token}\n` +
        `  (reading ${isLoopbackHost(host) ? 'is open on this loopback address' : 'needs the token: this host is not loopback'}; ` +
        `actions need the token, kept in ${token.path})\n`,
    );
    await stopRequested;
    await server.close();
    return 0;
  });
}
