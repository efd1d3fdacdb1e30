/** The agent-side tools: `merge_request {note}` and `sync {merge?}`. */
import { z } from 'zod';
import type { Result } from '../../lang/result.js';
import type { EventLog } from '../../store/types.js';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { commitChanges } from '../worktree.js';
import type { IntegrationQueue } from './queue.js';
import { type SyncResult, syncWorktree } from './sync.js';
import { resultText } from './texts.js';
import type { MergeRequestReply } from './types.js';

/**
 * What an agent's merge tools need of the integration queue: the queue itself where it lives (the
 * run's owner), or its HTTP front (src/fleet/integration-client.ts) on a fleet worker.
 */
export type IntegrationPort = Pick<IntegrationQueue, 'enqueue' | 'status' | 'outcome' | 'reply' | 'approval'>;

export interface IntegrationToolContext {
  runId: string;
  agent: string;
  worktree: string;
  /** The agent's branch in the hub (`agent/<name>`). */
  branch: string;
  /** Copies the agent's current commit (`head` when known) into the hub as `branch` (its repository is its own). */
  publish(head?: string): Promise<Result<string>>;
  queue: IntegrationPort;
  hubPath: string;
  log: EventLog;
  /** With manual approval: this agent's requests land without a review (a sole integrator's own). */
  preApproved?: boolean;
  /**
   * Submit and move on (peers): merge_request answers once the request is queued and the outcome
   * comes as a direct message; merge_status tells where it stands. Default false: it waits.
   */
  submitAndMoveOn?: boolean;
}

const WAITS =
  "this call waits for that outcome (when merges need a person's approval, it answers once your " +
  'change passed and waits for approval).';
const MOVES_ON =
  'this call answers as soon as your request is queued: carry on with other work, the outcome comes ' +
  'to you as a direct message from integration (merge_status {mr} tells where it stands). Later ' +
  'changes on your branch go into your next merge_request, together with any not landed yet.';

// Schemas are module constants: tools/define.ts converts each to JSON schema once per process.
const MERGE_REQUEST_SCHEMA = z.object({
  note: z.string().trim().min(1).max(2000).describe('what the change does and why'),
});

const MERGE_STATUS_SCHEMA = z.object({
  mr: z.number().int().positive().describe('the merge request id'),
  wait: z.boolean().optional().describe('wait for the outcome'),
});

const SYNC_SCHEMA = z.object({
  merge: z.boolean().optional().describe('merge main into your branch, leaving conflict markers to resolve'),
});

/** What the model is told when its commit held nested repositories (agent-commit.ts). */
export function nestedNote(nested: readonly string[] | undefined): string {
  if (!nested || nested.length === 0) return '';
  const names = nested.map((p) => `${p}/`).join(', ');
  return `Note: ${names} held a nested repository (a .git of its own): its files were committed as plain files; its .git and its history were not.\n`;
}

export function createMergeRequestTool(ctx: IntegrationToolContext): Tool {
  return defineTool({
    name: 'merge_request',
    description:
      'Commit all your changes (the note is the commit message) and ask to land them on main. The ' +
      'integration queue applies your commits on the latest main, runs the verify command and lands ' +
      `or rejects them; ${ctx.submitAndMoveOn ? MOVES_ON : WAITS} Your branch is left as it is either way.`,
    schema: MERGE_REQUEST_SCHEMA,
    mutates: true,
    async run({ note }, context) {
      const committed = await commitChanges(ctx.worktree, note, { hub: ctx.hubPath });
      if (!committed.ok) return fail(`merge_request: could not commit your changes: ${committed.error}`);
      const published = await ctx.publish(committed.status === 'committed' ? committed.commit : undefined);
      if (!published.ok) return fail(`merge_request: ${published.error}`);
      const queued = await ctx.queue.enqueue({
        agent: ctx.agent,
        branch: ctx.branch,
        commit: published.value,
        note,
        ...(ctx.preApproved ? { preApproved: true } : {}),
        ...(ctx.submitAndMoveOn ? { notify: true } : {}),
      });
      if (!queued.ok) return fail(`merge_request could not be queued: ${queued.error}`);
      const nested = nestedNote(committed.ok ? committed.nested : undefined);
      if (ctx.submitAndMoveOn) return ok(nested + queuedText(queued.mr, queued.commit, ctx.queue.approval));
      const result = await untilAborted(ctx.queue.reply(queued.mr), context.signal);
      if (result === null)
        return fail(
          `Stopped while waiting: merge request ${queued.mr} stays queued; its outcome will be logged.`,
        );
      const text = nested + resultText(result);
      return isSuccess(result) ? ok(text) : fail(text);
    },
  });
}

export function createMergeStatusTool(ctx: IntegrationToolContext): Tool {
  return defineTool({
    name: 'merge_status',
    description:
      'Where one of your merge requests stands: queued (and how many are ahead), being integrated, ' +
      'waiting for approval, landed or rejected (with the reason). With wait: true it answers when the ' +
      'request has landed or was rejected (use it when you have nothing else to do).',
    schema: MERGE_STATUS_SCHEMA,
    mutates: false,
    async run({ mr, wait }, context) {
      if (wait) {
        const known = await ctx.queue.status(mr);
        if (known.status === 'unknown') return fail(`There is no merge request ${mr} in this run.`);
        const outcome = await untilAborted(ctx.queue.outcome(mr), context.signal);
        if (outcome === null) return fail(`Stopped while waiting for merge request ${mr}.`);
        const text = resultText(outcome);
        return isSuccess(outcome) ? ok(text) : fail(text);
      }
      const status = await ctx.queue.status(mr);
      switch (status.status) {
        case 'queued':
          return ok(`Merge request ${mr} is queued; ${status.ahead} ahead of it.`);
        case 'integrating':
          return ok(`Merge request ${mr} is being built and verified on main now.`);
        case 'awaiting_approval':
          return ok(`Merge request ${mr} passed the merge check and waits for approval.`);
        case 'unknown':
          return fail(`There is no merge request ${mr} in this run.`);
        case 'done': {
          const text = resultText(status.result);
          return isSuccess(status.result) ? ok(text) : fail(text);
        }
      }
    },
  });
}

function queuedText(mr: number, commit: string, approval: 'auto' | 'manual' | 'human'): string {
  const approver = approval === 'human' ? 'a person' : approval === 'manual' ? 'an integrator' : null;
  return (
    `Merge request ${mr} is queued (your commit ${commit.slice(0, 10)}). ` +
    (approver
      ? `After the merge check it waits for approval by ${approver}; it lands only when approved. `
      : '') +
    'Carry on with other work: the outcome comes to you as a direct message from integration; ' +
    'merge_status {mr} tells where it stands. Keep the claim on what it changes until it has landed.'
  );
}

export function createSyncTool(ctx: IntegrationToolContext): Tool {
  return defineTool({
    name: 'sync',
    description:
      'Bring the latest main into your worktree (your commits are replayed on top of it; uncommitted ' +
      'changes are committed first as WIP) and list what landed since your last sync. On a conflict ' +
      'nothing changes and the files are named; call again with merge: true to get the conflict markers ' +
      'in those files, resolve them, then merge_request.',
    schema: SYNC_SCHEMA,
    mutates: true,
    async run({ merge }) {
      const result = await syncWorktree({
        runId: ctx.runId,
        agent: ctx.agent,
        worktree: ctx.worktree,
        hubPath: ctx.hubPath,
        log: ctx.log,
        publish: ctx.publish,
        mode: merge ? 'merge' : 'rebase',
      });
      if (!result.ok) return fail(`sync failed: ${result.error}`);
      const text = syncText(result);
      return result.status === 'conflict' ? fail(text) : ok(text);
    },
  });
}

function isSuccess(result: MergeRequestReply): boolean {
  if (result.status === 'landed' || result.status === 'awaiting_approval') return true;
  return result.status === 'rejected' && result.reason === 'nothing_to_merge';
}

export function syncText(result: Extract<SyncResult, { ok: true }>): string {
  const lines: string[] = [];
  if (result.wipCommit)
    lines.push(`Committed your uncommitted changes first as ${result.wipCommit.slice(0, 10)} (WIP).`);
  if (result.status === 'up_to_date')
    lines.push(`Already up to date with main (${result.main.slice(0, 10)}).`);
  if (result.status === 'synced')
    lines.push(`Your branch is now on top of main (${result.main.slice(0, 10)}).`);
  if (result.status === 'conflict' && result.merging)
    lines.push(
      `Merging main left conflicts in: ${result.conflicts.join(', ')}. Resolve the <<<<<<< ======= >>>>>>> ` +
        'markers in those files, then call merge_request (it commits the merge).',
    );
  else if (result.status === 'conflict')
    lines.push(
      `Your commits conflict with main in: ${result.conflicts.join(', ')}. Nothing was changed. ` +
        'Call sync with merge: true to resolve the conflicts in place.',
    );
  if (result.landed.length === 0) lines.push('Nothing landed since your last sync.');
  else {
    lines.push(`Landed since your last sync (${result.landed.length}):`);
    for (const item of result.landed.slice(-50))
      lines.push(`- MR ${item.mr} by ${item.agent} (${item.commit.slice(0, 10)}): ${item.note}`);
  }
  return lines.join('\n');
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    const onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}
