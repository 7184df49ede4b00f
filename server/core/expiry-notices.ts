/**
 * The owner told a day before a policy ends (issue 25, point 3): looked for every minute by the boot's
 * timer, told once per end (a new end is told again), across restarts (the notices port).
 */
import type { EngineContext } from './context.js';
import { endsSoon, expirySubject, expiryWords } from './expiry.js';

/** Tells the owner of every policy in use that ends within a day and was not told yet; answers how many were told. */
export function remindOfExpiries(ctx: EngineContext): number {
  const now = ctx.clock.now();
  const told = ctx.store.transaction(() =>
    ctx.store.listOwners().flatMap(({ address: owner }) => {
      const policies = ctx.store.listPolicies(owner);
      return ctx.store.listAgents(owner).flatMap(({ agentId }) => {
        const expiresAt = policies.get(agentId)?.expiresAt ?? null;
        if (!endsSoon(expiresAt, now) || ctx.store.noticeToldAt(owner, agentId, expirySubject(expiresAt)) !== null) return [];
        ctx.store.recordNotice(owner, agentId, expirySubject(expiresAt), now);
        return [{ owner, agentId, message: expiryWords(agentId, expiresAt) }];
      });
    }),
  );
  for (const { owner, agentId, message } of told) ctx.events.emit({ type: 'warning', owner, agentId, about: 'expiry', message });
  return told.length;
}
