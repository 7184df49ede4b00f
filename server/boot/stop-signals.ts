/**
 * What stops a Coffer process gracefully: Ctrl-C (SIGINT), `kill` (a process manager, `npm start`
 * stopped by its pid: SIGTERM), a closed terminal (SIGHUP). Listened to for good, never once: a
 * signal with no listener left kills the process, and the same stop is often asked twice.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];
