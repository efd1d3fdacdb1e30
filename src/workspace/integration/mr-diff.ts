/**
 * The change of one merge request, for a person deciding on it (the dashboard): what it changes, as
 * a patch computed by Colony in the run's hub, with its verify result.
 *
 * The commits and files are an agent's, so hostile input: git runs through the hardened wrapper
 * (git.ts: no hooks, no fsmonitor, no user or system config), with `--no-ext-diff --no-textconv` (a
 * `.gitattributes` naming a diff driver or textconv whose command is in a config an agent wrote runs
 * nothing), no submodule recursion, a timeout, and the patch capped. Symbolic links are shown as the
 * text of their target (a blob), never followed. What it returns is text for `textContent`.
 *
 * Which diff: a landed request, its landed commit against its parent (exactly what it put on main);
 * one waiting for approval, its candidate (one commit on main) likewise; any other, the agent's commit
 * against its merge base with hub main.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EventLog } from '../../store/types.js';
import { git, gitError } from '../git/git.js';
import { HUB_MAIN } from '../hub/main.js';

/** The most patch text returned (the file list is always whole). */
export const MAX_DIFF_CHARS = 512 * 1024;
const DIFF_TIMEOUT_MS = 30_000;
const HARDENED_DIFF = ['--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--submodule=short'];
/** No attributes file of anyone's config, nor one in the hub's info/. */
const DIFF_CONFIG: ReadonlyArray<readonly [string, string]> = [['core.attributesFile', '/dev/null']];

export interface MrDiffFile {
  path: string;
  /** null for a binary file. */
  added: number | null;
  deleted: number | null;
}

export interface MrDiff {
  mr: number;
  agent: string;
  branch: string;
  note: string;
  status: 'requested' | 'awaiting_approval' | 'landed' | 'rejected';
  /** What is compared: `from` → `to` (commit ids). */
  from: string;
  to: string;
  /** Which commits these are, in words. */
  basis: string;
  files: MrDiffFile[];
  patch: string;
  /** The patch was longer than MAX_DIFF_CHARS and was cut. */
  truncated: boolean;
  /** The verify summary it passed with (landed, waiting), or the rejection's reason and output. */
  verify: { summary: string | null; output: string | null } | null;
}

export type MrDiffResult =
  | { ok: true; value: MrDiff }
  | { ok: false; status: 404 | 409 | 500; error: string };

const COMMIT = /^[0-9a-f]{40,64}$/;

export async function mergeRequestDiff(log: EventLog, runId: string, mr: number): Promise<MrDiffResult> {
  const events = await log.read(runId, {
    kinds: [
      'workspace.ready',
      'merge.requested',
      'merge.landed',
      'merge.rejected',
      'merge.awaiting_approval',
    ],
  });
  let hub: string | null = null;
  let request: { agent: string; branch: string; commit: string; note: string } | null = null;
  let landed: { commit: string; verify: string | null } | null = null;
  let rejected: { reason: string; output: string } | null = null;
  let parked: { commit: string; verify: string | null } | null = null;
  for (const e of events) {
    if (e.kind === 'workspace.ready') hub ??= e.data.hub;
    else if (!('mr' in e.data) || e.data.mr !== mr) continue;
    else if (e.kind === 'merge.requested')
      request = { agent: e.agent ?? '', branch: e.data.branch, commit: e.data.commit, note: e.data.note };
    else if (e.kind === 'merge.landed') landed = { commit: e.data.commit, verify: e.data.verify ?? null };
    else if (e.kind === 'merge.rejected') rejected = { reason: e.data.reason, output: e.data.output };
    else if (e.kind === 'merge.awaiting_approval')
      parked = { commit: e.data.commit, verify: e.data.verify ?? null };
  }
  if (!request) return { ok: false, status: 404, error: `run ${runId} has no merge request ${mr}` };
  if (!hub || !existsSync(hub))
    return {
      ok: false,
      status: 409,
      error: `the run's hub repository is not on this machine (${hub ?? 'none'})`,
    };
  const repo = path.resolve(hub);
  const base = { mr, agent: request.agent, branch: request.branch, note: request.note };
  let range: { from: string; to: string; basis: string } | { error: string };
  let status: MrDiff['status'];
  let verify: MrDiff['verify'];
  if (landed) {
    status = 'landed';
    range = await parentRange(repo, landed.commit, 'the commit it landed as, against main before it');
    verify = { summary: landed.verify, output: null };
  } else if (rejected) {
    status = 'rejected';
    range = await mergeBaseRange(repo, request.commit);
    verify = { summary: rejected.reason, output: rejected.output };
  } else if (parked) {
    status = 'awaiting_approval';
    range = await parentRange(repo, parked.commit, 'its candidate on main, against main before it');
    verify = { summary: parked.verify, output: null };
  } else {
    status = 'requested';
    range = await mergeBaseRange(repo, request.commit);
    verify = null;
  }
  if ('error' in range) return { ok: false, status: 500, error: range.error };
  const changed = await diffFiles(repo, range.from, range.to);
  if (!changed.ok) return { ok: false, status: 500, error: changed.error };
  const patch = await diffPatch(repo, range.from, range.to);
  if (!patch.ok) return { ok: false, status: 500, error: patch.error };
  return {
    ok: true,
    value: {
      ...base,
      status,
      ...range,
      files: changed.files,
      patch: patch.text.slice(0, MAX_DIFF_CHARS),
      truncated: patch.text.length > MAX_DIFF_CHARS,
      verify,
    },
  };
}

async function parentRange(
  repo: string,
  commit: string,
  basis: string,
): Promise<{ from: string; to: string; basis: string } | { error: string }> {
  if (!COMMIT.test(commit)) return { error: `not a commit id: ${commit.slice(0, 80)}` };
  const parent = await run(repo, ['rev-parse', '--verify', '--end-of-options', `${commit}^1`]);
  if (!parent.ok) return { error: `the hub has no parent of ${commit.slice(0, 10)}: ${parent.error}` };
  return { from: parent.text.trim(), to: commit, basis };
}

async function mergeBaseRange(
  repo: string,
  commit: string,
): Promise<{ from: string; to: string; basis: string } | { error: string }> {
  if (!COMMIT.test(commit)) return { error: `not a commit id: ${commit.slice(0, 80)}` };
  const mergeBase = await run(repo, ['merge-base', '--end-of-options', `refs/heads/${HUB_MAIN}`, commit]);
  if (!mergeBase.ok)
    return { error: `no merge base of ${commit.slice(0, 10)} and ${HUB_MAIN}: ${mergeBase.error}` };
  return {
    from: mergeBase.text.trim(),
    to: commit,
    basis: `the agent's commit, against its merge base with ${HUB_MAIN}`,
  };
}

async function diffFiles(
  repo: string,
  from: string,
  to: string,
): Promise<{ ok: true; files: MrDiffFile[] } | { ok: false; error: string }> {
  const result = await run(repo, ['diff', ...HARDENED_DIFF, '--numstat', '-z', '--end-of-options', from, to]);
  if (!result.ok) return result;
  const files: MrDiffFile[] = [];
  for (const record of result.text.split('\0')) {
    if (record === '') continue;
    const [added, deleted, ...rest] = record.split('\t');
    const count = (v: string | undefined) => (v === undefined || v === '-' ? null : Number(v));
    files.push({ path: rest.join('\t'), added: count(added), deleted: count(deleted) });
  }
  return { ok: true, files };
}

async function diffPatch(
  repo: string,
  from: string,
  to: string,
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  return run(repo, ['diff', ...HARDENED_DIFF, '--end-of-options', from, to]);
}

async function run(
  repo: string,
  args: string[],
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  const result = await git(args, { cwd: repo, timeoutMs: DIFF_TIMEOUT_MS, config: DIFF_CONFIG });
  if (!result.ok) return { ok: false, error: `git ${args[0]}: ${gitError(result)}` };
  return { ok: true, text: result.stdout };
}
