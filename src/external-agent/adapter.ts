/**
 * What an adapter makes of one external CLI: the command line, its environment and files, what goes
 * to its stdin, and how its stdout lines are read (session id, MCP connection, end of work).
 */
import { modelProxyEnv } from '../proxy/index.js';
import type { HomeFile } from './home-files.js';

export interface AdapterInput {
  agent: string;
  goal: string;
  /** The peer protocol prompt (the same a built-in peer gets). */
  system: string;
  /** The URLs as the CLI reaches them (inside the sandbox too). */
  mcpUrl: string;
  modelUrl: string;
  /** The agent's token (scopes mcp and model). */
  token: string;
  /** HOME as the CLI sees it (the adapter's files are written into the same folder on the host). */
  home: string;
  /** `--agent-cli cmd:<command>`'s command, or another binary for claude-code/codex. */
  command?: string;
  /** A session of this CLI logged by an earlier process (resumed after a crash). */
  resumeSession?: string;
  /** What a resumed session is told (default RESUME_TEXT; a subagent's next task: the task). */
  resumeText?: string;
  /** How many times this agent's CLI was restarted after a crash in this run process (0: first). */
  restart?: number;
  /** The names of Colony's tools served to the agent over MCP. */
  colonyTools: string[];
  /** The wire name of the model the proxy gives the agent (Codex picks its prompt and tools by it). */
  model?: string;
}

/** What a line of the CLI's stdout tells the host. */
export type LineSignal =
  | { kind: 'session'; sessionId: string }
  | { kind: 'fail'; reason: string }
  | {
      kind: 'result';
      ok: boolean;
      text: string;
      turns?: number;
      /** The session it was asked to resume does not exist (never written): start it afresh. */
      sessionNotFound?: boolean;
    }
  | { kind: 'activity' };

export interface CliLaunch {
  argv: string[];
  /** Set for the CLI beside the allow-listed base (PATH, LANG, TERM). */
  env: Record<string, string>;
  /** Files written into its home before it starts (mode 0600, never through a link: home-files.ts). */
  files: HomeFile[];
  /** Written to its stdin at start; null: its stdin is closed at once. */
  input: string | null;
  /** Reads one stdout line (absent: stdout is only kept as the output tail). */
  readLine?: (line: string) => LineSignal | null;
  /** Reads one stderr line (which is kept as the output tail as well): a CLI that reports there. */
  readErrorLine?: (line: string) => LineSignal | null;
  /** A direct message as a stdin line (absent: the CLI takes none; it reads them with message_read). */
  messageLine?: (text: string) => string;
  /** Closes stdin after this signal (stream-json input: a CLI exits when its input ends). */
  endInputOn?: LineSignal['kind'];
  /**
   * True: the CLI reports its end (a `result` signal), so an exit without one is a crash. Else only
   * a death by signal is.
   */
  reportsResult?: boolean;
}

export type Adapter = (input: AdapterInput) => CliLaunch;

/** What a CLI resumed after a crash is told (its session holds the goal and the work so far). */
export const RESUME_TEXT =
  'Colony restarted you after a crash: go on with the goal where you left off (check your claims and merge requests first).';

/** The variables every adapter sets: the Colony endpoints, the agent's token, goal and prompt. */
export function colonyEnv(input: AdapterInput): Record<string, string> {
  return {
    ...modelProxyEnv(input.modelUrl, input.token),
    COLONY_MCP_URL: input.mcpUrl,
    COLONY_AGENT_TOKEN: input.token,
    COLONY_AGENT: input.agent,
    COLONY_GOAL: input.goal,
    COLONY_SYSTEM_PROMPT: input.system,
    HOME: input.home,
    // A restarted command (cmd: has no session to resume) learns it is one.
    ...(input.restart ? { COLONY_RESTART: String(input.restart) } : {}),
  };
}
