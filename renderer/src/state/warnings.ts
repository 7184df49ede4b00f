/**
 * A warning the server sent on its event stream while this tab was open: a budget past one of the
 * owner's shares, or a policy ending within a day. Its words live only in the event (the figures
 * behind it are read through /v1), so the tab keeps the few latest until the owner dismisses them.
 */
export interface Warning {
  agentId: string;
  about: 'budget' | 'expiry';
  message: string;
  at: string;
}
/** How many warnings are kept on screen: the latest, newest first. */
const WARNINGS_KEPT = 3;

/** A `warning` event's data, checked (it crossed the wire), or null. */
export function warningOf(data: unknown): Warning | null {
  if (typeof data !== 'object' || data === null) return null;
  const { agentId, about, message, at } = data as Record<string, unknown>;
  if (typeof agentId !== 'string' || typeof message !== 'string' || (about !== 'budget' && about !== 'expiry')) return null;
  return { agentId, about, message, at: typeof at === 'string' ? at : new Date().toISOString() };
}

/** The warnings kept once `warning` came: it first, then the others but the oldest past the few kept. */
export function withWarning(warnings: Warning[], warning: Warning): Warning[] {
  // The same words again (a reconnect, a second tab's echo) are not shown twice.
  const others = warnings.filter((w) => w.message !== warning.message);
  return [warning, ...others].slice(0, WARNINGS_KEPT);
}
