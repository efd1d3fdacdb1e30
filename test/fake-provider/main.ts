/**
 * Runs the fake provider as its own process:
 *   node dist/test/fake-provider/main.js --port 0 --latency-ms 1000 --scenario fanout
 * Prints one JSON line {"url": ..., "port": ...} when listening; stops on SIGTERM/SIGINT.
 */
import { scenarios } from './scenarios.js';
import { startFakeProvider } from './server.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const scenarioName = arg('scenario') ?? 'fanout';
const policy = scenarios[scenarioName];
if (!policy) {
  process.stderr.write(`unknown scenario '${scenarioName}'; known: ${Object.keys(scenarios).join(', ')}\n`);
  process.exit(2);
}
const fake = await startFakeProvider({
  policy,
  port: Number(arg('port') ?? 0),
  latencyMs: Number(arg('latency-ms') ?? 0),
  record: false,
});
const stop = (): void => {
  fake.close().then(() => process.exit(0));
};
// Handlers first, then the announcement: a caller may stop the server as soon as it reads the URL.
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdout.write(`${JSON.stringify({ url: fake.url, port: fake.port })}\n`);
