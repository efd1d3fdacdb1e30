/**
 * Running the run's verify command on hub main, in a clean detached checkout (setup first). Results
 * are logged as `verify.finished` with the commit verified, so a commit is verified at most once per
 * run (also across a resume); calls are serialised (one checkout).
 */
import { join } from 'node:path';
import type { EventKind, EventPayloads } from '../../core/events.js';
import type { Sandbox } from '../../sandbox/index.js';
import type { EventLog } from '../../store/types.js';
import { hubMainCommit } from '../../workspace/hub/main.js';
import { checkoutForCheck } from '../../workspace/main-checkout.js';
import { runShellCommand } from '../../workspace/shell-command.js';

/** Folder (beside the agents' worktrees, so RunWorkspace.finish() removes it). */
const VERIFY_CHECKOUT = '.verify-main';

export interface MainVerifier {
  /** Verifies hub main as it is now; returns the commit and whether verify passed. */
  verify(): Promise<{ commit: string; passed: boolean }>;
}

export function mainVerifier(options: {
  runId: string;
  runDir: string;
  hubPath: string;
  log: EventLog;
  verify: string;
  /** The commit the run started from (setup has the network on its tree only). */
  baseCommit: string;
  setup?: string;
  env: NodeJS.ProcessEnv;
  sandbox?: Sandbox | null;
  emit: <K extends EventKind>(kind: K, data: EventPayloads[K]) => Promise<unknown>;
}): MainVerifier {
  let chain: Promise<unknown> = Promise.resolve();
  const checkout = join(options.runDir, 'worktrees', VERIFY_CHECKOUT);

  const verifyNow = async (): Promise<{ commit: string; passed: boolean }> => {
    const head = await hubMainCommit(options.hubPath);
    if (!head.ok) throw new Error(head.error);
    const commit = head.value;
    const logged = (await options.log.read(options.runId, { kinds: ['verify.finished'] })).find(
      (e) => e.agent === null && e.data.commit === commit,
    );
    if (logged) return { commit, passed: logged.data.passed };

    const prepared = await checkoutForCheck({
      hubPath: options.hubPath,
      checkout,
      commit,
      baseCommit: options.baseCommit,
      setup: options.setup,
      env: options.env,
      sandbox: options.sandbox,
    });
    if (prepared.kind === 'error') throw new Error(`${prepared.error} (for verify)`);
    if (prepared.kind === 'setup_failed') {
      const { setup } = prepared;
      await options.emit('verify.finished', {
        command: options.verify,
        exitCode: setup.exitCode,
        passed: false,
        output: `setup failed before verify:\n${setup.output}`,
        durationMs: setup.durationMs,
        commit,
      });
      return { commit, passed: false };
    }
    const result = await runShellCommand(options.verify, checkout, {
      env: options.env,
      sandbox: options.sandbox,
    });
    const passed = result.exitCode === 0;
    await options.emit('verify.finished', {
      command: options.verify,
      exitCode: result.exitCode,
      passed,
      output: result.output,
      durationMs: result.durationMs,
      commit,
    });
    return { commit, passed };
  };

  return {
    verify() {
      const next = chain.then(verifyNow, verifyNow);
      chain = next.catch(() => undefined);
      return next;
    },
  };
}
