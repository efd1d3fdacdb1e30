/**
 * `--notify URL` (and config `notify`) for `colony run` and `colony resume`: the settings checked
 * (a usage error otherwise), the values to scrub from the run's log, and the run's notifier
 * (src/notify/), started before the run and finished after it (docs/notify.md).
 */
import {
  type Notifier,
  type NotifyConfig,
  notifySecrets,
  resolveNotifySettings,
  startNotifier,
} from '../notify/index.js';
import type { NotifySettings } from '../notify/settings.js';
import type { RunSpec } from '../run/run-spec.js';
import type { Store } from '../store/index.js';
import { UsageError } from './args.js';

export const NOTIFY_FLAG_HELP = `  --notify URL         POST a JSON notification to this webhook (signed with HMAC-SHA256 when
                       COLONY_NOTIFY_SECRET or config "notify": {"secret"} is set) and, on a desktop,
                       show it with notify-send, when a merge waits for your approval, an agent
                       stalls, a budget passes 80%, a limit is hit and the run ends. "desktop": the
                       desktop only. Config: "notify" {url, secret?, events?, desktop?, timeoutMs?}.
                       Never delays the run; see docs/notify.md`;

export function notifySettingsOrThrow(
  flag: string | undefined,
  config: NotifyConfig | undefined,
  env: NodeJS.ProcessEnv,
  command: string,
): NotifySettings | null {
  const resolved = resolveNotifySettings(flag, config, env);
  if (!resolved.ok) throw new UsageError(`${command}: ${resolved.error}`);
  return resolved.value;
}

/** The values the run's scrubbing log must keep out (the webhook's token, the secret). */
export function notifyExtraSecrets(settings: NotifySettings | null): string[] {
  return settings ? notifySecrets(settings) : [];
}

/** The run's notifier (null without settings); says where notifications go unless `quiet`. */
export function startRunNotifier(
  store: Store,
  spec: RunSpec,
  settings: NotifySettings | null,
  quiet: boolean,
): Notifier | null {
  if (!settings) return null;
  const notifier = startNotifier({
    log: store.log,
    runId: spec.runId,
    watch: {
      ...(spec.budgetUsd !== undefined ? { budgetUsd: spec.budgetUsd } : {}),
      ...(spec.budgetTokens !== undefined ? { budgetTokens: spec.budgetTokens } : {}),
      approvals: spec.approveMerges === true,
    },
    settings,
    env: process.env,
  });
  if (notifier.targets.length === 0)
    process.stderr.write(
      'warning: --notify desktop: no desktop here (DISPLAY, notify-send): nothing will be notified\n',
    );
  else if (!quiet) process.stdout.write(`  notifications to ${notifier.targets.join(', ')}\n`);
  return notifier;
}
