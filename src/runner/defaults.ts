/**
 * What a run gets for every setting its starter leaves out: the library's `runTopology` and the
 * `colony` command alike (the CLI's configuration starts from these, cli/config.ts DEFAULT_CONFIG).
 */
import type { SandboxMode } from '../sandbox/index.js';

export interface RunDefaults {
  maxSteps: number;
  modelTimeoutMs: number;
  maxRetries: number;
  bashTimeoutS: number;
  profile: string;
  stream: boolean;
  /** How long a run may take, as a duration (`24h`); it then ends as `deadline_exceeded`. */
  deadline: string;
  /** peers: how long a peer may go without an event before it is nudged, as a duration (`5m`). */
  idle: string;
  sandbox: SandboxMode;
  allowNetwork: boolean;
}

export const RUN_DEFAULTS: Readonly<RunDefaults> = {
  maxSteps: 100,
  modelTimeoutMs: 120_000,
  maxRetries: 4,
  bashTimeoutS: 120,
  profile: 'coder',
  stream: false,
  deadline: '24h',
  idle: '5m',
  sandbox: 'on',
  allowNetwork: false,
};
