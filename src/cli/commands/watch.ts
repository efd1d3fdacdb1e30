import path from 'node:path';
import { parseDurationMs } from '../../core/duration.js';
import { terminalLine } from '../../core/terminal-text.js';
import {
  checkApiBase,
  FORGE_KINDS,
  type ForgeKind,
  forgeApiFor,
  forgeToken,
  isForgeKind,
  KNOWN_FORGE_HOSTS,
  TOKEN_ENV,
} from '../../forge/index.js';
import { forgeErrorHint, forgeStatus, Watcher } from '../../watch/index.js';
import { numberFlag, parseFlags, UsageError } from '../args.js';
import { ATTEMPTS_OPTIONS } from '../attempts-flags.js';
import { CliFailure, withStore } from '../store-access.js';
import { preparePublishOrThrow } from './publish.js';
import { RUN_OPTIONS } from './run.js';

export const WATCH_HELP = `colony watch --forge KIND --repo OWNER/NAME --label L [options] [colony run flags]

Takes the open issues of a forge repository that carry the label and runs Colony on each: one run per
issue, its goal the issue's title and text, the run id commented on the issue when it starts; when the
run ends, its result is pushed and a pull request opened (as colony publish --pr does) and the
outcome commented (status, the pull request). Runs in the foreground until Ctrl-C; the runs are
processes of their own and go on without it. An issue is taken once: a watch stopped or killed and
started again carries on with the issues it took and never starts one twice (docs/watch.md).

  --forge KIND         github, gitlab or gitea (Gitea and Forgejo)
  --repo OWNER/NAME    the repository on the forge (GitLab: group/…/project)
  --label L            take open issues with this label
  --forge-api URL      the forge's API base (default https://api.github.com, https://gitlab.com/api/v4;
                       required for gitea and any self-hosted forge)
  --clone PATH         your local clone of the repository the runs work on (default: current folder)
  --remote REMOTE      its remote on the forge, pushed to (default origin)
  --reviewer R         ask this user to review each pull request (repeatable)
  --max-runs K         at most K issues under way at once (default 2)
  --stall-timeout D    stop a run whose log has not moved for this long (default 30m)
  --poll D             how often to look at the issues and the runs (default 60s)

Every other flag is passed to each colony run as given (--topology, --agents, --model, --verify,
--sandbox, --budget-usd, …: colony run --help); --goal, --repo, --push and --json are the watch's.
The token comes from GITHUB_TOKEN, GITLAB_TOKEN or GITEA_TOKEN: it needs to read issues, comment,
push and open pull requests, and is sent only to the forge's API (and to the remote when it is the
forge's own host); the runs do not get it. Anyone who can put the label on an issue can start a run
with its text as the goal: give the label only to people you would let run Colony.`;

const WATCH_OPTIONS = {
  forge: { type: 'string' },
  repo: { type: 'string' },
  label: { type: 'string' },
  'forge-api': { type: 'string' },
  clone: { type: 'string' },
  remote: { type: 'string' },
  reviewer: { type: 'string', multiple: true },
  'max-runs': { type: 'string' },
  'stall-timeout': { type: 'string' },
  poll: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Run flags the watch sets itself, or that mean something else here. */
const NOT_PASSED = new Set([
  'goal',
  'repo',
  'json',
  'push',
  'run-id',
  'help',
  'max-runs',
  'pr',
  'draft',
  'label',
  'reviewer',
  'per-merge-request',
  'forge',
  'forge-api',
  // One run per issue: best-of-N attempts would be N runs under one issue's run id (docs/attempts.md).
  ...Object.keys(ATTEMPTS_OPTIONS),
]);

const PASSED_OPTIONS = Object.fromEntries(
  Object.entries(RUN_OPTIONS).filter(([name]) => !NOT_PASSED.has(name)),
) as Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

const DEFAULT_API: Partial<Record<ForgeKind, string>> = Object.fromEntries(
  Object.values(KNOWN_FORGE_HOSTS)
    .filter((h) => h.kind !== 'gitea')
    .map((h) => [h.kind, h.apiBase]),
);

export async function watchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { ...PASSED_OPTIONS, ...WATCH_OPTIONS }, 'watch');
  if (values.help) {
    process.stdout.write(`${WATCH_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`watch: unexpected argument "${positionals[0]}"`);
  const flags = values as Record<string, string | string[] | boolean | undefined>;
  const text = (name: string) => flags[name] as string | undefined;
  const forge = text('forge');
  if (forge === undefined || !isForgeKind(forge))
    throw new UsageError(
      `watch: --forge must be ${FORGE_KINDS.join(', ')}${forge ? `, got "${forge}"` : ''}`,
    );
  const repo = text('repo');
  if (!repo || !/^[\w.-]+(\/[\w.-]+)+$/.test(repo) || repo.split('/').some((p) => p === '.' || p === '..'))
    throw new UsageError('watch: --repo must be OWNER/NAME (GitLab: group/…/project)');
  if (forge !== 'gitlab' && repo.split('/').length !== 2)
    throw new UsageError(`watch: --repo must be OWNER/NAME on ${forge}`);
  const label = text('label');
  if (!label || label.trim() === '' || label.includes(','))
    throw new UsageError('watch: --label L is required (one label, no comma)');
  const apiText = text('forge-api') ?? DEFAULT_API[forge];
  if (apiText === undefined)
    throw new UsageError(`watch: --forge ${forge} needs --forge-api (e.g. https://git.example.com/api/v1)`);
  const api = checkApiBase(apiText);
  if (!api.ok) throw new UsageError(`watch: ${api.error}`);
  const maxRuns = numberFlag(text('max-runs'), 'max-runs', 'int') ?? 2;
  const stallMs = durationFlag(text('stall-timeout'), 'stall-timeout') ?? 30 * 60_000;
  const pollMs = durationFlag(text('poll'), 'poll') ?? 60_000;
  const token = forgeToken(forge, process.env);
  if (!token.ok) throw new UsageError(`watch: ${token.error}, read issues and comment`);

  const clone = path.resolve(text('clone') ?? process.cwd());
  // The push and pull request, checked as colony publish checks them (remote, forge, token).
  const publish = await preparePublishOrThrow(
    clone,
    {
      remote: text('remote') ?? 'origin',
      pullRequest: { draft: false, labels: [], reviewers: (flags.reviewer as string[] | undefined) ?? [] },
      perMergeRequest: false,
      forge,
      forgeApi: api.value.base,
    },
    'watch',
  );
  const target = publish.target;
  if (
    !target ||
    target.kind !== forge ||
    target.repoPath.toLowerCase() !== repo.toLowerCase() ||
    target.apiBase !== api.value.base
  )
    throw new UsageError(
      `watch: the remote ${publish.remote.display} of ${clone} is not ${repo} on ${api.value.base}` +
        `${target ? ` (it is ${target.repoPath})` : ''}: the pull requests would go elsewhere`,
    );
  const forgeApi = forgeApiFor(target, token.value);
  const variable = TOKEN_ENV[forge];
  const runEnv = { ...process.env };
  delete runEnv[variable];
  const runArgs = passedRunArgs(flags);
  const say = (line: string) => process.stdout.write(`watch: ${terminalLine(line)}\n`);

  // A token or repository the forge refuses is a clear error now, not a loop of them.
  const checked = await forgeApi.defaultBranch();
  if (!checked.ok) {
    const status = forgeStatus(checked.error);
    if (status === 401 || status === 403 || status === 404)
      throw new CliFailure(`watch: ${forgeErrorHint(checked.error, variable)}: ${checked.error}`);
    say(`${forgeErrorHint(checked.error, variable)}: ${checked.error}; carrying on, with pauses`);
  }

  return withStore(async (store) => {
    const watcher = new Watcher({
      store,
      api: forgeApi,
      where: { apiBase: api.value.base, repo, forge },
      label,
      clone,
      runArgs,
      publish,
      maxRuns,
      stallMs,
      pollMs,
      maxBackoffMs: 5 * 60_000,
      tokenVariable: variable,
      runEnv,
      outputFolder: path.join(store.home, 'watch'),
      say,
    });
    const stop = () => watcher.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    say(`watching ${repo} on ${api.value.base} for issues labelled ${label} (at most ${maxRuns} at once)`);
    try {
      await watcher.run();
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    say('stopped (runs under way go on; the next colony watch follows them)');
    return 0;
  });
}

function durationFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDurationMs(value);
  if (ms === null || ms <= 0) throw new UsageError(`watch: --${name} must be a duration like 90s, 5m, 1h`);
  return ms;
}

/** The `colony run` flags given, as arguments for each run. */
function passedRunArgs(flags: Record<string, string | string[] | boolean | undefined>): string[] {
  const args: string[] = [];
  for (const name of Object.keys(PASSED_OPTIONS)) {
    const value = flags[name];
    if (value === undefined || value === false) continue;
    if (value === true) args.push(`--${name}`);
    else for (const one of Array.isArray(value) ? value : [value]) args.push(`--${name}=${one}`);
  }
  return args;
}
