/**
 * The owner's settings: the time zone their calendar budgets (day, week, month) and the days they name
 * (a policy ending "2026-12-31") follow. The machine Coffer runs on is the owner's, so its zone is the
 * default; an owner whose Coffer runs elsewhere (a server in UTC) names their own. And the rail their
 * agents' x402 purchases are paid on where a seller takes both (x402-pay.ts decides with it).
 */
import { audit, type ContextWith } from './context.js';
import { FRESH_FOR, actorOf, requireFreshSignIn, requireOwner, type Principal } from './auth.js';
import type { AuditStore, MetaStore } from './ports/store.js';
import type { SettingsBody } from '../wire/schemas.js';
import type { Settings } from '../wire/answers/settings.js';
import type { Rail } from '../wire/rails.js';
import { chainOf } from './rails.js';

type SettingsContext = ContextWith<MetaStore & AuditStore>;

/** The machine's time zone, as this process found it at its start. */
const MACHINE_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
const TIME_ZONE = 'time_zone';
const PREFERRED_RAIL = 'preferred_rail';

/** The time zone calendar windows follow: the owner's, when set; else the machine's. */
export const timeZoneOf = (ctx: ContextWith<MetaStore>): string => ctx.store.getMeta(TIME_ZONE) ?? MACHINE_TIME_ZONE;

/** The rail the owner prefers x402 purchases on where a seller takes both; null where they named none. */
export const preferredRailOf = (ctx: ContextWith<MetaStore>): Rail | null => {
  const rail = ctx.store.getMeta(PREFERRED_RAIL);
  return rail === 'sol' || rail === 'base' ? rail : null;
};

export function readSettings(ctx: SettingsContext, principal: Principal): Settings {
  requireOwner(principal);
  const chosen = ctx.store.getMeta(TIME_ZONE);
  return {
    timeZone: chosen ?? MACHINE_TIME_ZONE,
    timeZoneFrom: chosen === null ? ('machine' as const) : ('owner' as const),
    preferredRail: preferredRailOf(ctx),
  };
}

/**
 * Sets what the body names. The time zone (null: the machine's again): moving it moves where each
 * calendar window begins, so a day's budget may start afresh sooner, a change of what can be spent,
 * behind a fresh sign-in as a loosening is. The preferred rail (null: none) changes which wallet pays,
 * never how much may be spent, so it needs no fresh sign-in; Base only where its rail is open. Each
 * change is audited on its own (the rail only where it changed).
 */
export function updateSettings(ctx: SettingsContext, principal: Principal, body: SettingsBody): Settings {
  requireOwner(principal);
  if (body.timeZone !== undefined) requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.timeZone);
  const { timeZone, preferredRail } = body;
  // A preference no purchase could follow is refused (rail_unavailable) rather than kept in silence.
  if (preferredRail !== undefined && preferredRail !== null) chainOf(ctx, preferredRail);
  const before = readSettings(ctx, principal);
  if (timeZone !== undefined) {
    if (timeZone === null) ctx.store.deleteMeta(TIME_ZONE);
    else ctx.store.setMeta(TIME_ZONE, timeZone);
  }
  if (preferredRail !== undefined) {
    if (preferredRail === null) ctx.store.deleteMeta(PREFERRED_RAIL);
    else ctx.store.setMeta(PREFERRED_RAIL, preferredRail);
  }
  const after = readSettings(ctx, principal);
  const actor = actorOf(principal);
  if (timeZone !== undefined) {
    const detail = { before: pick(before, 'timeZone', 'timeZoneFrom'), after: pick(after, 'timeZone', 'timeZoneFrom') };
    audit(ctx, { actor, owner: principal.owner, action: 'settings.time_zone', detail });
  }
  if (preferredRail !== undefined && before.preferredRail !== after.preferredRail) {
    const detail = { before: before.preferredRail, after: after.preferredRail };
    audit(ctx, { actor, owner: principal.owner, action: 'settings.preferred_rail', detail });
  }
  return after;
}

const pick = <T, K extends keyof T>(value: T, ...keys: K[]): Pick<T, K> =>
  Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;

export const settingsApp = (ctx: SettingsContext) => ({
  readSettings: (p: Principal) => readSettings(ctx, p),
  updateSettings: (p: Principal, body: SettingsBody) => updateSettings(ctx, p, body),
});
