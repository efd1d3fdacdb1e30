/** What a person is notified of (docs/notify.md): each a kind of moment in a run that may need them. */
export const NOTIFY_KINDS = [
  'approval_needed',
  'agent_stalled',
  'budget_warning',
  'limit_hit',
  'run_finished',
] as const;

export type NotifyKind = (typeof NOTIFY_KINDS)[number];

/** One moment worth a notification, found in the run's log (occurrences.ts). */
export interface Occurrence {
  kind: NotifyKind;
  /** Names the moment; one notification per occurrence and target, across resumes. */
  key: string;
  /** The event that revealed it. */
  seq: number;
  /** Its time (the database's). */
  at: string;
  /** The agent it is about, if any (a name: may be agent-chosen). */
  agent: string | null;
  /** Per kind (docs/notify.md): numbers, Colony's words, and at most a capped agent-written note. */
  details: Record<string, string | number | boolean | null>;
}
