/**
 * Runs a task's verify command in a checkout and reads its per-test results: from the file the task
 * names, else from the command's stdout (sent to a file of the checkout, so that it is neither mixed
 * with stderr nor cut to the command runner's output cap, and works inside a sandbox too). The
 * checkout may be agents' work: the results are read without following a link (one to a host file
 * would grade that file), and the environment has none of Colony's secrets.
 */
import { lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { isSecretEnvName } from '../../agent/tools/env.js';
import { readNoFollow } from '../../core/no-follow.js';
import type { Result } from '../../lang/result.js';
import type { Sandbox } from '../../sandbox/index.js';
import { type CommandResult, runShellCommand } from '../../workspace/shell-command.js';
import { parseResults, type TestResult } from './results/index.js';
import type { TaskSpec } from './task.js';

export interface CommandRecord {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** The tail of its output (stdout and stderr; verify's stdout only when it is not the results). */
  output: string;
}

export interface CommandContext {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  sandbox: Sandbox | null;
}

export interface VerifyRun {
  record: CommandRecord;
  /** The parsed results; null when the command wrote none. */
  results: Result<TestResult[]> | null;
}

const STDOUT_FILE = '.colony-eval-stdout';
const OUTPUT_TAIL = 4_000;

export async function runCommand(
  command: string,
  dir: string,
  context: CommandContext,
): Promise<CommandRecord> {
  const result: CommandResult = await runShellCommand(command, dir, context);
  return {
    command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    output: result.output.slice(-OUTPUT_TAIL),
  };
}

export async function runVerify(
  verify: TaskSpec['verify'],
  dir: string,
  context: CommandContext,
): Promise<VerifyRun> {
  const resultsRel = verify.file ?? STDOUT_FILE;
  // A results file left in the tree (committed by an agent, say) must not be read as this run's.
  await removeInside(dir, resultsRel);
  // Braces, not a subshell: the command's exit status is the shell's, its stdout goes to the file.
  const command = verify.file ? verify.command : `{ ${verify.command}\n} > ${STDOUT_FILE}`;
  const record = await runCommand(command, dir, context);
  const read = await readNoFollow(dir, resultsRel);
  await removeInside(dir, STDOUT_FILE);
  const results: VerifyRun['results'] = read.ok
    ? parseResults(verify.results, read.value.toString('utf8'))
    : read.reason === 'refused'
      ? { ok: false, error: `${resultsRel} not read: ${read.error}` }
      : null;
  return { record: { ...record, command: verify.command }, results };
}

/** Removes `rel` under `dir` (a link itself, not what it names), unless a link is on its way there. */
async function removeInside(dir: string, rel: string): Promise<void> {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const stat = await lstat(path.join(dir, ...parts.slice(0, i))).catch(() => null);
    if (!stat?.isDirectory()) return;
  }
  await rm(path.join(dir, rel), { force: true }).catch(() => {});
}

/**
 * Colony's environment less its secrets (API keys, tokens, passwords, the database's: what an
 * agent's commands never get either) and less what would change how a test runner behaves: Node's
 * test runner reports in its child format when NODE_TEST_CONTEXT is set (as it is when Colony itself
 * runs under it). In a sandbox only its allow-list of this is used (sandbox/env.ts).
 */
export function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => name !== 'NODE_TEST_CONTEXT' && !isSecretEnvName(name)),
  );
}
