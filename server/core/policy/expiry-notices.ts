/**
 * The owner told a day before a policy ends (issue 25, point 3): looked for every minute by the boot's
 * timer, told once (across restarts: the notices port), and again after the owner sets another end.
 */
import type { EngineContext } from '../context.js';
import { EXPIRY_SUBJECT, endsSoon, expiryWords } from './expiry.js';
import { timeZoneOf } from '../settings.js';

/** Tells the owner of every policy in use that ends within a day and was not told yet; answers how many were told. */
export function remindOfExpiries(ctx: EngineContext): number {
  const now = ctx.clock.now();
  const untold = (owner: string, agentId: string, expiresAt: number | null): expiresAt is number =>
    endsSoon(expiresAt, now) && ctx.store.noticeToldAt(owner, agentId, EXPIRY_SUBJECT) === null;
  // Read first: most minutes nothing is due, and no write is opened.
  const due = ctx.store.listOwners().flatMap(({ address: owner }) => {
    const policies = ctx.store.listPolicies(owner);
    return ctx.store
      .listAgents(owner)
      .filter(({ agentId }) => untold(owner, agentId, policies.get(agentId)?.expiresAt ?? null))
      .map(({ agentId }) => ({ owner, agentId }));
  });
  if (due.length === 0) return 0;
  const timeZone = timeZoneOf(ctx);
  // Decided again inside the write (a policy may have changed since the read).
  const told = ctx.store.transaction(() =>
    due.flatMap(({ owner, agentId }) => {
      const { expiresAt } = ctx.store.getPolicy(owner, agentId);
      if (!untold(owner, agentId, expiresAt)) return [];
      ctx.store.recordNotice(owner, agentId, EXPIRY_SUBJECT, now);
      return [{ owner, agentId, message: expiryWords(agentId, expiresAt, timeZone) }];
    }),
  );
  for (const { owner, agentId, message } of told) ctx.events.emit({ type: 'warning', owner, agentId, about: 'expiry', message });
  return told.length;
}
