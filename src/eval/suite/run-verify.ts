/**
 * Runs a task's verify command in a checkout and reads its per-test results: from the file the task
 * names, else from the command's stdout (sent to a file of the checkout, so that it is neither mixed
 * with stderr nor cut to the command runner's output cap, and works inside a sandbox too).
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
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
  const resultsFile = path.join(dir, verify.file ?? STDOUT_FILE);
  // A results file left in the tree (committed by an agent, say) must not be read as this run's.
  await rm(resultsFile, { force: true });
  // Braces, not a subshell: the command's exit status is the shell's, its stdout goes to the file.
  const command = verify.file ? verify.command : `{ ${verify.command}\n} > ${STDOUT_FILE}`;
  const record = await runCommand(command, dir, context);
  const text = await readFile(resultsFile, 'utf8').catch(() => null);
  await rm(path.join(dir, STDOUT_FILE), { force: true });
  return {
    record: { ...record, command: verify.command },
    results: text === null ? null : parseResults(verify.results, text),
  };
}

/**
 * Colony's environment less what would change how a test runner behaves: Node's test runner reports
 * in its child format when NODE_TEST_CONTEXT is set (as it is when Colony itself runs under it).
 */
export function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...rest } = env;
  return rest;
}
