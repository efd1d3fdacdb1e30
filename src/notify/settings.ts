/**
 * The notification settings: `--notify URL` and the config file's `notify` object (docs/notify.md),
 * checked into what the notifier uses, or the problem as data.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../lang/result.js';
import { NOTIFY_KINDS, type NotifyKind } from './kinds.js';

/** `notify` in the config file. */
export const notifyConfigSchema = z
  .object({
    /** The webhook (http or https); `desktop` for desktop notifications only. */
    url: z.string().min(1).optional(),
    /** Signs each webhook body (HMAC-SHA256); also read from COLONY_NOTIFY_SECRET. */
    secret: z.string().min(16, 'a notify secret has at least 16 characters').optional(),
    /** Only these kinds (default: all). */
    events: z.array(z.enum(NOTIFY_KINDS)).min(1).optional(),
    /** notify-send on a desktop (default true: used when there is a display and notify-send). */
    desktop: z.boolean().optional(),
    /** Each webhook request's time-out (default 5000 ms). */
    timeoutMs: z.number().int().positive().max(60_000).optional(),
  })
  .strict();

export type NotifyConfig = z.infer<typeof notifyConfigSchema>;

export const DEFAULT_TIMEOUT_MS = 5_000;

export interface NotifySettings {
  /** The webhook, or null (desktop only). */
  url: URL | null;
  secret: string | null;
  /** The kinds to send (all by default). */
  kinds: ReadonlySet<NotifyKind>;
  /** Whether to try notify-send (it is used only on a desktop with notify-send on PATH). */
  desktop: boolean;
  timeoutMs: number;
}

/**
 * The settings from the flag (wins over the file's `url`), the config file and the environment;
 * null when no URL (flag or file) asks for notifications.
 */
export function resolveNotifySettings(
  flagUrl: string | undefined,
  config: NotifyConfig | undefined,
  env: NodeJS.ProcessEnv,
): Result<NotifySettings | null> {
  const target = flagUrl ?? config?.url;
  // A file may hold the secret and filters for runs given `--notify URL`: without a URL, no notifier.
  if (target === undefined) return ok(null);
  let url: URL | null = null;
  if (target !== 'desktop') {
    const parsed = parseWebhookUrl(target);
    if (!parsed.ok) return parsed;
    url = parsed.value;
  }
  const secret = env.COLONY_NOTIFY_SECRET || config?.secret || null;
  if (secret !== null && secret.length < 16)
    return err('notify: COLONY_NOTIFY_SECRET must have at least 16 characters');
  return ok({
    url,
    secret,
    kinds: new Set(config?.events ?? NOTIFY_KINDS),
    desktop: config?.desktop ?? true,
    timeoutMs: config?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
}

/** An http(s) URL without user info (a password in it would be sent as Basic auth and shown). */
export function parseWebhookUrl(text: string): Result<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return err('notify: the webhook must be an http(s) URL (or "desktop")');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return err(`notify: the webhook must be http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password)
    return err('notify: put no user or password in the webhook URL; sign requests with a secret instead');
  return ok(url);
}

/** What the log may say about the webhook: its host (and port), never the path or query. */
export function webhookTarget(url: URL): string {
  return `webhook:${url.host}`;
}

/** Values to keep out of the log: the URL whole, its path and query (tokens live there), the secret. */
export function notifySecrets(settings: NotifySettings): string[] {
  const values: string[] = [];
  if (settings.url) {
    values.push(settings.url.href);
    const rest = `${settings.url.pathname}${settings.url.search}`;
    if (rest.length >= 8) values.push(rest);
    for (const part of rest.split(/[/?&=]/)) if (part.length >= 12) values.push(part);
  }
  if (settings.secret) values.push(settings.secret);
  return values;
}
