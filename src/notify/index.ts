/** Notifications to the person in the loop (issue 31): webhook and desktop, from the run's log. */
export { NOTIFY_KINDS, type NotifyKind, type Occurrence } from './kinds.js';
export { type Notifier, type NotifierOptions, startNotifier } from './notifier.js';
export { createOccurrenceFinder, type OccurrenceWatch } from './occurrences.js';
export { type NotifyPayload, notifyPayload } from './payload.js';
export {
  type NotifyConfig,
  type NotifySettings,
  notifyConfigSchema,
  notifySecrets,
  resolveNotifySettings,
} from './settings.js';
export { SIGNATURE_HEADER, signBody, TIMESTAMP_HEADER } from './signature.js';
