import { describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { deployAgent, manualClock, signIn } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { expectError } from '../helpers/expect-error.js';

/** The owner's time zone (GET/POST /v1/settings): what calendar budgets and the days a policy names follow. */
describe("settings: the owner's time zone", () => {
  const t = useCoffer();
  const settings = () => t.api('GET', t.withOwner('/v1/settings'));
  const set = (body: unknown, key?: string) => t.api('POST', t.withOwner('/v1/settings'), key === undefined ? { body } : { body, key });

  it("is the machine's until the owner names one; calendar budgets and a policy's last day then follow it", async () => {
    expect((await settings()).body).toEqual({
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      timeZoneFrom: 'machine',
      preferredRail: null,
    });
    // A zone far from this machine's: its midnight is another hour.
    const zone = 'Pacific/Kiritimati';
    expect((await set({ timeZone: zone })).body).toEqual({ timeZone: zone, timeZoneFrom: 'owner', preferredRail: null });
    expect((await settings()).body).toEqual({ timeZone: zone, timeZoneFrom: 'owner', preferredRail: null });

    await deployAgent(t, 'zoned');
    const policy = await t.api('POST', t.withOwner('/v1/agents/zoned/policy'), {
      body: { budgets: [{ amount: '1', window: 'day' }], expiresAt: '2099-12-31' },
    });
    const nextMidnight = Temporal.Now.zonedDateTimeISO(zone)
      .toPlainDate()
      .add({ days: 1 })
      .toZonedDateTime({ timeZone: zone }).epochMilliseconds;
    const read = await t.api('GET', t.withOwner('/v1/agents/zoned/policy'));
    expect(Date.parse(read.body.budgets[0].resetsAt)).toBe(nextMidnight);
    // The end of 31 December 2099 where the owner is (UTC+14).
    expect(policy.body.policy.expiresAt).toBe('2099-12-31T10:00:00.000Z');

    expect((await set({ timeZone: null })).body).toMatchObject({ timeZoneFrom: 'machine' });
  });

  it('refuses what is not a time zone with a code, and an agent key; the setting is unchanged', async () => {
    await set({ timeZone: 'Europe/Berlin' });
    expectError(
      await set({ timeZone: 'Mars/Olympus_Mons' }),
      400,
      'invalid_time_zone',
      /^Time zone is "Mars\/Olympus_Mons", which is not a time zone/,
    );
    expectError(await set({ timeZone: 42 }), 400, 'invalid_time_zone');
    expectError(await set({}), 400, 'invalid_request', /names no setting to change/);
    expectError(await set({ timeZone: 'UTC', zone: 'UTC' }), 400, 'invalid_request');
    const agent = await deployAgent(t, 'nosy');
    expectError(await set({ timeZone: 'UTC' }, agent.apiKey), 403, 'owner_only');
    expectError(await t.api('GET', t.withOwner('/v1/settings'), { key: agent.apiKey }), 403, 'owner_only');
    expect((await settings()).body).toEqual({ timeZone: 'Europe/Berlin', timeZoneFrom: 'owner', preferredRail: null });
  });

  it('keeps a zone in its one spelling: "utc" is stored and answered as "UTC", "europe/berlin" as "Europe/Berlin"', async () => {
    for (const [sent, kept] of [
      ['utc', 'UTC'],
      ['europe/berlin', 'Europe/Berlin'],
    ]) {
      expect((await set({ timeZone: sent })).body).toMatchObject({ timeZone: kept, timeZoneFrom: 'owner' });
      expect((await settings()).body).toMatchObject({ timeZone: kept, timeZoneFrom: 'owner' });
    }
  });

  it('keeps the preferred rail apart from the time zone: set, cleared and refused on its own, each change audited', async () => {
    await set({ timeZone: 'UTC' });
    expect((await set({ preferredRail: 'base' })).body).toEqual({ timeZone: 'UTC', timeZoneFrom: 'owner', preferredRail: 'base' });
    // Set again as it is: nothing changed, nothing more audited.
    expect((await set({ preferredRail: 'base' })).body).toMatchObject({ preferredRail: 'base' });
    expect((await settings()).body).toMatchObject({ timeZone: 'UTC', preferredRail: 'base' });
    expectError(await set({ preferredRail: 'eth' }), 400, 'invalid_request', /Preferred rail must be "sol" or "base"/);
    expectError(await set({ preferredRail: 'sol', timeZone: 'Mars/Olympus_Mons' }), 400, 'invalid_time_zone');
    expect((await settings()).body).toMatchObject({ timeZone: 'UTC', preferredRail: 'base' });
    expect((await set({ preferredRail: null })).body).toEqual({ timeZone: 'UTC', timeZoneFrom: 'owner', preferredRail: null });
    const audited = t.coffer.db.prepare("SELECT detail FROM audit_log WHERE action = 'settings.preferred_rail' ORDER BY id").pluck().all();
    expect(audited.map((detail) => JSON.parse(detail as string))).toEqual([
      { before: null, after: 'base' },
      { before: 'base', after: null },
    ]);
  });
});

describe('settings where the Base rail is off', () => {
  const t = useCoffer({ baseRpc: 'off' });

  it('refuses Base as the preferred rail, changing nothing; Solana and none are taken', async () => {
    const set = (body: unknown) => t.api('POST', t.withOwner('/v1/settings'), { body });
    // The dashboard knows the rail is off by its network (a Base account is filed all the same).
    expect((await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.baseNetwork).toBeNull();
    expectError(await set({ preferredRail: 'base', timeZone: 'UTC' }), 503, 'rail_unavailable', /Base rail is not open/);
    expect((await t.api('GET', t.withOwner('/v1/settings'))).body).toMatchObject({ timeZoneFrom: 'machine', preferredRail: null });
    expect((await set({ preferredRail: 'sol' })).body).toMatchObject({ preferredRail: 'sol' });
    expect((await set({ preferredRail: null })).body).toMatchObject({ preferredRail: null });
  });
});

describe('settings from a dashboard session signed in over ten minutes ago', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });

  it('sets the preferred rail, which moves no budget, but not the time zone, alone or beside the rail: nothing changes', async () => {
    const stale = await signIn(t);
    clock.advance(10 * 60 * 1000 + 1);
    const set = (body: unknown) => t.api('POST', t.withOwner('/v1/settings'), { key: stale, body });
    for (const body of [{ timeZone: 'UTC' }, { timeZone: null }, { timeZone: 'UTC', preferredRail: 'base' }]) {
      const refused = await set(body);
      expectError(refused, 403, 'confirmation_required');
      // Why, in words of the time zone's own (helper 175: "this moves money or lets an agent spend more").
      expect(refused.body.error).toMatch(
        /^this moves where calendar budgets start afresh, which can free an agent’s budget early, which needs a sign-in/,
      );
    }
    expect((await t.api('GET', t.withOwner('/v1/settings'))).body).toMatchObject({ timeZoneFrom: 'machine', preferredRail: null });
    expect((await set({ preferredRail: 'base' })).body).toMatchObject({ timeZoneFrom: 'machine', preferredRail: 'base' });
  });
});
