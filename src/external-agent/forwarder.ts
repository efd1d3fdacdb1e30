/**
 * Reaching the host from inside the sandbox: a sandbox without network has its own network
 * namespace, where the host's 127.0.0.1 is not reachable. The host server also listens on a unix
 * socket, bound into the sandbox; this tiny forwarder (plain Node, run with `node -e` as the
 * sandbox's command) listens on the sandbox's own 127.0.0.1 at the host server's port, pipes each
 * connection to the socket, then runs the CLI as its child with the same stdio and exits with its
 * code. The CLI sees the same URLs inside and outside.
 */

/** Where the socket is bound inside the sandbox. */
export const SANDBOX_SOCKET = '/tmp/colony-host.sock';

const SCRIPT = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socket, port, file, ...args] = process.argv.slice(1);
const server = net.createServer((c) => {
  const up = net.connect(socket);
  c.pipe(up).pipe(c);
  const end = () => { c.destroy(); up.destroy(); };
  c.on('error', end); up.on('error', end);
});
server.on('error', (e) => { process.stderr.write('colony forwarder: ' + e.message + '\\n'); process.exit(70); });
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(file, args, { stdio: 'inherit' });
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
  child.on('error', (e) => { process.stderr.write('colony forwarder: ' + e.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
});
`;

/** The sandbox's command: node, the forwarder, then the CLI's own argv. */
export function forwardedCommand(node: string, port: number, command: readonly string[]): string[] {
  return [node, '-e', SCRIPT, SANDBOX_SOCKET, String(port), ...command];
}
