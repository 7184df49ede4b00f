/**
 * The owner's settings: the time zone their calendar budgets (day, week, month) and the days they name
 * (a policy ending "2026-12-31") follow. The machine Coffer runs on is the owner's, so its zone is the
 * default; an owner whose Coffer runs elsewhere (a server in UTC) names their own.
 */
import { audit, type ContextWith } from './context.js';
import { FRESH_FOR, actorOf, requireFreshSignIn, requireOwner, type Principal } from './auth.js';
import type { AuditStore, MetaStore } from './ports/store.js';
import type { SettingsBody } from '../wire/schemas.js';
import type { Settings } from '../wire/answers/settings.js';

type SettingsContext = ContextWith<MetaStore & AuditStore>;

/** The machine's time zone, as this process found it at its start. */
const MACHINE_TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
const TIME_ZONE = 'time_zone';

/** The time zone calendar windows follow: the owner's, when set; else the machine's. */
export const timeZoneOf = (ctx: ContextWith<MetaStore>): string => ctx.store.getMeta(TIME_ZONE) ?? MACHINE_TIME_ZONE;

export function readSettings(ctx: SettingsContext, principal: Principal): Settings {
  requireOwner(principal);
  const chosen = ctx.store.getMeta(TIME_ZONE);
  return { timeZone: chosen ?? MACHINE_TIME_ZONE, timeZoneFrom: chosen === null ? ('machine' as const) : ('owner' as const) };
}

/**
 * Sets the owner's time zone (null: the machine's again). Moving it moves where each calendar window
 * begins, so a day's budget may start afresh sooner: a change of what can be spent, behind a fresh
 * sign-in as a loosening is.
 */
export function updateSettings(ctx: SettingsContext, principal: Principal, body: SettingsBody): Settings {
  requireOwner(principal);
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  const before = readSettings(ctx, principal);
  if (body.timeZone === null) ctx.store.deleteMeta(TIME_ZONE);
  else ctx.store.setMeta(TIME_ZONE, body.timeZone);
  const after = readSettings(ctx, principal);
  audit(ctx, { actor: actorOf(principal), owner: principal.owner, action: 'settings.time_zone', detail: { before, after } });
  return after;
}

export const settingsApp = (ctx: SettingsContext) => ({
  readSettings: (p: Principal) => readSettings(ctx, p),
  updateSettings: (p: Principal, body: SettingsBody) => updateSettings(ctx, p, body),
});
