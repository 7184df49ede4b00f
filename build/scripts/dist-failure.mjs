// What `npm run dist` says when electron-builder fails for want of the network: which host it could
// not reach and for what, in one paragraph, instead of a stack trace.

/** Electron-builder's output, reduced to the cause a person can act on; null when it is not a fetch. */
export function explainFetchFailure(output) {
  const host =
    /getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([\w.-]+)/.exec(output)?.[1] ??
    /connect (?:ECONNREFUSED|ETIMEDOUT|ENETUNREACH) ([\d.:]+)/.exec(output)?.[1] ??
    null;
  const status = /HttpError: (\d{3})[^\n]*\n[^\n]*?(https?:\/\/\S+)/.exec(output);
  if (host === null && status === null) return null;
  const electron = /electron=([\d.]+)/.exec(output)?.[1];
  const what = /downloading\s+url=(\S+)/.exec(output)?.[1] ?? (electron ? `Electron ${electron} for this platform` : 'what it packages');
  const where = host ?? new URL(status[2]).host;
  const why = host !== null ? `${where} cannot be reached from this machine` : `${where} answered ${status[1]}`;
  return [
    `npm run dist: electron-builder could not fetch ${what}: ${why}.`,
    'Nothing was packaged. Run it where that host is reachable, or point ELECTRON_MIRROR (and',
    'ELECTRON_BUILDER_BINARIES_MIRROR for its tools) at a mirror this machine can reach.',
  ].join('\n');
}
