/**
 * The notifier of one run: it follows the run's log (a read of the kinds it watches every quarter
 * second, like `colony logs --follow`), finds the moments worth a notification (occurrences.ts) and
 * sends each to every target — the webhook, the desktop — with retries, logging `notify.sent` or
 * `notify.failed`. The run never waits for it: the run only appends to its log; a dead or slow
 * receiver costs the notifier's own promises and timers. `finish()` (after the run ended) reads the
 * log a last time and waits for deliveries still going, each bounded by its tries and time-outs.
 */
import type { EventKind } from '../core/events.js';
import { createScrubber } from '../core/secrets.js';
import type { EventLog } from '../store/types.js';
import { findNotifySend, showDesktop } from './desktop.js';
import type { Occurrence } from './kinds.js';
import { createOccurrenceFinder, type OccurrenceWatch, WATCHED_KINDS } from './occurrences.js';
import { type NotifyPayload, notifyPayload } from './payload.js';
import { withRetries } from './retry.js';
import { type NotifySettings, notifySecrets, webhookTarget } from './settings.js';
import { postWebhook } from './webhook.js';

export interface NotifierOptions {
  /** The run's log (the store's): read to find occurrences, appended with notify.* events. */
  log: EventLog;
  runId: string;
  watch: OccurrenceWatch;
  settings: NotifySettings;
  env: NodeJS.ProcessEnv;
  pollMs?: number;
}

export interface Notifier {
  /** Where notifications go (`webhook:<host>`, `desktop`). */
  readonly targets: readonly string[];
  /** After the run ended: a last read of the log, then the deliveries still going. */
  finish(): Promise<void>;
}

interface Target {
  name: string;
  send(payload: NotifyPayload): Promise<{ ok: true } | { ok: false; error: string }>;
}

const POLL_MS = 250;

export function startNotifier(options: NotifierOptions): Notifier {
  const { log, runId, settings } = options;
  const targets = notifyTargets(settings, options.env);
  const scrubber = createScrubber(notifySecrets(settings));
  const finder = createOccurrenceFinder(options.watch);
  const kinds = watchedKinds(options.watch);
  const dispatched = new Set<string>();
  const deliveries = new Set<Promise<void>>();
  let afterSeq = 0;

  const deliver = (occurrence: Occurrence, target: Target) => {
    const payload = notifyPayload(runId, occurrence);
    const delivery = withRetries(() => target.send(payload))
      .then((result) => {
        const about = { kind: occurrence.kind, target: target.name, occurrence: occurrence.key };
        return log.append(
          result.ok
            ? {
                runId,
                agent: null,
                kind: 'notify.sent',
                data: { ...about, attempt: result.attempt, seq: occurrence.seq },
              }
            : {
                runId,
                agent: null,
                kind: 'notify.failed',
                data: {
                  ...about,
                  error: scrubber.scrub(result.error),
                  attempts: result.attempts,
                  seq: occurrence.seq,
                },
              },
        );
      })
      // The log gone (the database stopped): the notification's outcome goes unrecorded, that is all.
      .then(
        () => undefined,
        () => undefined,
      );
    deliveries.add(delivery);
    void delivery.finally(() => deliveries.delete(delivery));
  };

  const readNew = async () => {
    const events = await log.read(runId, { afterSeq, kinds, slim: true });
    const found: Occurrence[] = [];
    for (const event of events) {
      afterSeq = Math.max(afterSeq, event.seq);
      found.push(...finder.apply(event));
    }
    // Only after the whole batch: a resumed run's first read holds the notify.* events that follow
    // the occurrences they settled.
    for (const occurrence of found) {
      if (!settings.kinds.has(occurrence.kind)) continue;
      for (const target of targets) {
        const id = `${target.name}\n${occurrence.key}`;
        if (dispatched.has(id) || finder.done(target.name, occurrence.key)) continue;
        dispatched.add(id);
        deliver(occurrence, target);
      }
    }
  };

  let reading: Promise<void> = Promise.resolve();
  const tick = () => {
    reading = reading.then(readNew).catch(() => {
      // A failed read is tried again at the next tick; the run reports real failures itself.
    });
    return reading;
  };
  const timer = targets.length > 0 ? setInterval(tick, options.pollMs ?? POLL_MS) : null;
  timer?.unref();

  return {
    targets: targets.map((t) => t.name),
    async finish() {
      if (timer) clearInterval(timer);
      if (targets.length === 0) return;
      await tick();
      while (deliveries.size > 0) await Promise.all([...deliveries]);
    },
  };
}

function notifyTargets(settings: NotifySettings, env: NodeJS.ProcessEnv): Target[] {
  const targets: Target[] = [];
  const { url } = settings;
  if (url)
    targets.push({
      name: webhookTarget(url),
      send: (payload) =>
        postWebhook({
          url,
          secret: settings.secret,
          timeoutMs: settings.timeoutMs,
          kind: payload.kind,
          body: JSON.stringify(payload),
        }),
    });
  const program = settings.desktop ? findNotifySend(env) : null;
  if (program)
    targets.push({
      name: 'desktop',
      send: (payload) => showDesktop(program, payload.title, payload.text, env),
    });
  return targets;
}

/** The kinds the finder needs for what is watched (model responses only when a budget is set). */
function watchedKinds(watch: OccurrenceWatch): EventKind[] {
  return WATCHED_KINDS.filter((kind) => {
    if (kind === 'model.response') return watch.budgetUsd !== undefined || watch.budgetTokens !== undefined;
    if (kind === 'merge.requested' || kind === 'merge.awaiting_approval') return watch.approvals;
    return true;
  });
}
