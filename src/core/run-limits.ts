/**
 * The default of `--concurrency`: most agents of a team run (peers, orchestrated, workflow) working
 * at once when the run does not say (REFERENCE §3: 64 threads). The scheduler applies it, and the
 * views show it as the limit a run without the setting ran with.
 */
export const DEFAULT_CONCURRENCY = 64;
