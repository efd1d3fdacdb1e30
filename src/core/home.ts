import { homedir } from 'node:os';
import { join } from 'node:path';

/** Colony's state folder: `COLONY_HOME` or `~/.colony`. Never inside the user's repository. */
export function colonyHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.COLONY_HOME && env.COLONY_HOME.length > 0 ? env.COLONY_HOME : join(homedir(), '.colony');
}

export function runDir(home: string, runId: string): string {
  return join(home, 'runs', runId);
}
