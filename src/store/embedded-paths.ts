import { join } from 'node:path';

/** Where the shared embedded server keeps its state under Colony's home. */
export interface EmbeddedPaths {
  root: string;
  data: string;
  clients: string;
  lock: string;
  port: string;
  superuserPassword: string;
  appPassword: string;
  log: string;
  /** Who started the running server (pid + start time) and when. */
  server: string;
  /** The folder of the server's unix-domain socket (clients on this machine use it: cheaper than TCP). */
  socket: string;
}

export function embeddedPaths(home: string): EmbeddedPaths {
  const root = join(home, 'pg');
  return {
    root,
    data: join(root, 'data'),
    clients: join(root, 'clients'),
    lock: join(root, 'lock'),
    port: join(root, 'port'),
    superuserPassword: join(root, 'superuser-password'),
    appPassword: join(root, 'app-password'),
    log: join(root, 'server.log'),
    server: join(root, 'server.json'),
    socket: join(root, 'sock'),
  };
}

export const EMBEDDED_DATABASE = 'colony';
export const EMBEDDED_SUPERUSER = 'postgres';
export const APP_ROLE = 'colony_app';
