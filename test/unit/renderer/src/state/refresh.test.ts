// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { CofferApiError } from '../../../../../renderer/src/api/client.js';
import type { DashboardState, GetState, SetState } from '../../../../../renderer/src/state/dashboard-state.js';
import { loseConnection, refreshFromServer, settingsChangedHere } from '../../../../../renderer/src/state/refresh.js';

const dashboard = { treasury: { amount: '5000000', network: 'sim' }, agents: [], archivedAgents: [] };
const settings = { timeZone: 'UTC', timeZoneFrom: 'owner' as const, preferredRail: null };

/** A server that answers each read (a copy of the same figures each time), or refuses them all with `error`. */
function fakeClient(error?: Error) {
  const answer = <T>(value: T) => vi.fn(async () => (error ? Promise.reject(error) : structuredClone(value)));
  return {
    dashboard: answer(dashboard),
    deposits: answer({ deposits: [] }),
    approvals: answer({ approvals: [] }),
    settings: answer(settings),
  };
}

/** The store's state and its set and get, without React. */
function fakeStore(client: unknown, start: Partial<DashboardState> = {}) {
  let state = {
    client,
    dashboard: null,
    deposits: [],
    pendingApprovals: [],
    settings: null,
    refreshError: 'old',
    connection: 'live',
    ...start,
  } as unknown as DashboardState;
  const set = ((partial: Partial<DashboardState>) => {
    state = { ...state, ...partial };
  }) as SetState;
  const get: GetState = () => state;
  return { set, get };
}

describe('a refresh', () => {
  it('reads everything, clears the last error, and keeps the old objects when the answer is the same', async () => {
    const { set, get } = fakeStore(fakeClient());
    await refreshFromServer(set, get);
    const first = get();
    expect(first.dashboard).toEqual(dashboard);
    expect(first.settings).toEqual(settings);
    expect(first.refreshError).toBeNull();
    await refreshFromServer(set, get);
    expect(get().dashboard).toBe(first.dashboard);
    expect(get().settings).toBe(first.settings);
    expect(get().deposits).toBe(first.deposits);
  });

  it('says the server is back only for a refresh sent after the connection was lost', async () => {
    const client = fakeClient();
    let answer: () => void = () => {};
    client.dashboard.mockImplementationOnce(() => new Promise((resolve) => (answer = () => resolve(structuredClone(dashboard)))));
    const { set, get } = fakeStore(client);
    const sentBefore = refreshFromServer(set, get);
    loseConnection(set);
    expect(get().connection).toBe('reconnecting');
    await vi.waitFor(() => expect(client.settings).toHaveBeenCalled());
    answer();
    await sentBefore;
    expect(get().connection).toBe('reconnecting');
    await refreshFromServer(set, get);
    expect(get().connection).toBe('live');
  });

  it('an answer to an older refresh that comes after a newer one changes nothing: the screen never goes back', async () => {
    const client = fakeClient();
    const before = { ...dashboard, treasury: { ...dashboard.treasury, amount: '1000000' } };
    let answerOlder: () => void = () => {};
    client.dashboard.mockImplementationOnce(() => new Promise((resolve) => (answerOlder = () => resolve(structuredClone(before)))));
    const { set, get } = fakeStore(client);
    // An event's refresh asks (its answer slow), then a save's refresh asks and is answered first.
    const older = refreshFromServer(set, get);
    await vi.waitFor(() => expect(client.settings).toHaveBeenCalledTimes(1));
    await refreshFromServer(set, get);
    expect(get().dashboard).toEqual(dashboard);
    answerOlder();
    await older;
    expect(get().dashboard).toEqual(dashboard);
  });

  it('settings this tab just changed are not taken back by a refresh sent before the change', async () => {
    const client = fakeClient();
    let answerOlder: () => void = () => {};
    client.settings.mockImplementationOnce(() => new Promise((resolve) => (answerOlder = () => resolve(structuredClone(settings)))));
    const { set, get } = fakeStore(client);
    const older = refreshFromServer(set, get);
    await vi.waitFor(() => expect(client.settings).toHaveBeenCalledTimes(1));
    // The owner moves the time zone; the server's answer to that is on screen at once.
    const moved = { ...settings, timeZone: 'Europe/Berlin' };
    settingsChangedHere(set, moved);
    answerOlder();
    await older;
    expect(get().settings).toEqual(moved);
    expect(get().dashboard).toEqual(dashboard);
    // A refresh sent after the change shows what the server says from then on.
    await refreshFromServer(set, get);
    expect(get().settings).toEqual(settings);
  });

  it('a 401 signs the tab out, no answer marks the figures stale, any other refusal is shown', async () => {
    const signedOut = fakeStore(fakeClient(new CofferApiError(401, 'unauthorized', 'signed out')));
    await refreshFromServer(signedOut.set, signedOut.get);
    expect(signedOut.get().status).toBe('signed-out');

    const down = fakeStore(fakeClient(new CofferApiError(0, 'offline', 'no answer')));
    await refreshFromServer(down.set, down.get);
    expect(down.get().connection).toBe('reconnecting');
    expect(down.get().refreshError).toBe('old');

    const refused = fakeStore(fakeClient(new CofferApiError(500, 'internal', 'the database is locked')));
    await refreshFromServer(refused.set, refused.get);
    expect(refused.get().refreshError).toBe('the database is locked');
    expect(refused.get().connection).toBe('live');
  });

  it("a 401 to a refresh of a session signed in anew since changes nothing: the new session's token stays", async () => {
    const older = fakeClient();
    let refuseOlder: () => void = () => {};
    older.dashboard.mockImplementationOnce(
      () => new Promise((_resolve, reject) => (refuseOlder = () => reject(new CofferApiError(401, 'unauthorized', 'session ended')))),
    );
    const { set, get } = fakeStore(older, { status: 'ready' });
    const sentBefore = refreshFromServer(set, get);
    await vi.waitFor(() => expect(older.settings).toHaveBeenCalled());
    // Signed in again meanwhile (a new login link): a new token, a new client.
    sessionStorage.setItem('coffer.session', 'cof_ses_new');
    set({ client: fakeClient() as unknown as DashboardState['client'] });
    refuseOlder();
    await sentBefore;
    expect(get().status).toBe('ready');
    expect(sessionStorage.getItem('coffer.session')).toBe('cof_ses_new');
  });

  it('does nothing without a client (signed out)', async () => {
    const { set, get } = fakeStore(null);
    await refreshFromServer(set, get);
    expect(get().refreshError).toBe('old');
  });
});
