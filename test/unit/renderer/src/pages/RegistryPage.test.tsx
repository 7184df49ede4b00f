// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { RegistryPage } from '../../../../../renderer/src/pages/RegistryPage.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import type { SearchResult, Service } from '../../../../../renderer/src/api/types.js';
import { shortTime } from '../../../../../renderer/src/lib/time.js';

const FACILITATOR = 'https://x402.org/facilitator';
const catalogWeather: Service = {
  id: 'demo-weather',
  name: 'Coffer demo weather',
  description: 'Current weather and a three-day forecast for a city',
  category: 'weather',
  pricing: {},
  pricePerCall: '0.01',
  endpoint: 'GET http://127.0.0.1:7403/weather?city={city}',
  source: 'x402-marketplace',
  payTo: '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx',
  network: 'sim',
  base: { payTo: '0x558D0663A0BAAc54ed3780ebe12DFafBF0fE05f1', network: 'sim' },
};
/** A Bazaar listing as GET /v1/services/search answers it. */
const bazaarWeather: Service = {
  id: 'bazaar:api.harbor.dev:0a1b2c3d4e',
  name: 'Harbor Weather',
  description: 'Current weather and a forecast for a city',
  category: 'weather, forecast',
  pricing: {},
  pricePerCall: '0.02',
  endpoint: 'GET https://api.harbor.dev/weather?city={city}',
  source: 'x402-bazaar',
  payTo: '32TkufgACBYJtUXpxmkpPLhnV7J4Hf4pQXm6BS9Raq3T',
  network: 'devnet',
  base: null,
  discovery: {
    facilitator: FACILITATOR,
    resource: 'https://api.harbor.dev/weather',
    lastUpdated: '2026-11-20T09:30:00.000Z',
    x402Version: 2,
  },
};
const leftOut = { invalid: 1, not_http: 0, other_network: 25, not_usdc: 3, not_exact: 0, duplicate: 0, over_limit: 0 };
const status = (edit: Partial<NonNullable<SearchResult['bazaar']>> = {}): NonNullable<SearchResult['bazaar']> => ({
  facilitator: FACILITATOR,
  state: 'fresh',
  fetchedAt: '2026-11-24T10:00:00.000Z',
  ageSeconds: 180,
  error: null,
  listed: 1,
  leftOut,
  note: null,
  ...edit,
});
const answer = (bazaar: SearchResult['bazaar'], results: Service[] = [catalogWeather, bazaarWeather]): SearchResult => ({
  query: '',
  results,
  total: results.length,
  totalIsCapped: false,
  bazaar,
});

const client = { searchServices: vi.fn(), models: vi.fn() };

beforeEach(() => {
  client.searchServices.mockReset();
  client.models.mockResolvedValue({ models: [] });
  useDashboard.setState({ client: client as never, settings: { timeZone: 'UTC', timeZoneFrom: 'owner', preferredRail: null } });
});
afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, settings: null });
});

async function shown(result: SearchResult) {
  client.searchServices.mockResolvedValue(result);
  render(<RegistryPage />);
  await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/services?/));
}

describe('the Registry page with Bazaar discovery', () => {
  it('lists a Bazaar service after the catalog’s, with its price, its kind and where it was found', async () => {
    await shown(answer(status()));
    const rows = screen.getAllByTestId(/^service-/);
    expect(rows.map((row) => row.dataset.testid)).toEqual(['service-demo-weather', 'service-bazaar:api.harbor.dev:0a1b2c3d4e']);
    const row = rows[1]!;
    expect(row.textContent).toContain('Harbor Weather');
    expect(row.textContent).toContain('x402 Bazaar · weather, forecast');
    expect(row.textContent).toMatch(/0\.02\s*USDC a call|\$?0\.02.*a call/);
    expect(within(row).getByTestId('origin').textContent).toBe(
      `Found in the x402 Bazaar of x402.org/facilitator, listed there ${shortTime('2026-11-20T09:30:00.000Z', new Date(), 'UTC')}; ` +
        'paid with x402, allowed by its recipient',
    );
    // The catalog's own listing says nothing of a Bazaar, and that it is paid on Base too; the Bazaar's is not.
    expect(within(rows[0]!).queryByTestId('origin')).toBeNull();
    // The catalog's paid APIs answer a 402 that Coffer pays (its own, or x402's): not only x402.
    expect(rows[0]!.textContent).toContain('Paid API · weather');
    expect(within(rows[0]!).getByTestId('rails').textContent).toBe('paid on Solana or Base');
    expect(within(row).queryByTestId('rails')).toBeNull();
    cleanup();
    // A Bazaar listing payable on Base alone (its Base account in payTo and in base): Base, not "Solana or Base".
    const baseAccount = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    await shown(answer(status(), [{ ...bazaarWeather, payTo: baseAccount, network: 'sim', base: { payTo: baseAccount, network: 'sim' } }]));
    expect(screen.getByTestId('rails').textContent).toBe('paid on Base');
    cleanup();
    await shown(answer(status()));
    expect(screen.getByTestId('bazaar-status').textContent).toBe(
      'x402 Bazaar of x402.org/facilitator: 1 service Coffer can pay, read 3 min ago.' +
        '29 more listed there left out: 1 malformed, 25 on other networks, 3 in another token.',
    );
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('warns when the facilitator did not answer: the last good list is shown, with how old it is and why', async () => {
    await shown(
      answer(
        status({
          state: 'stale',
          ageSeconds: 7_200,
          error: {
            code: 'bazaar_unreachable',
            message: `the facilitator at ${FACILITATOR} did not answer (ECONNREFUSED)`,
            at: '2026-11-24T12:05:00.000Z',
          },
        }),
      ),
    );
    const alert = screen.getByRole('alert');
    expect(alert.className).toBe('banner warning');
    expect(alert.textContent).toContain('1 service Coffer can pay, read 2 h ago.');
    expect(alert.textContent).toContain(
      `The last read failed at ${shortTime('2026-11-24T12:05:00.000Z', new Date(), 'UTC')}: the facilitator at ${FACILITATOR} did not answer (ECONNREFUSED) (bazaar_unreachable).`,
    );
    expect(alert.textContent).toContain('Shown: its last good list.');
    expect(screen.getByTestId('service-bazaar:api.harbor.dev:0a1b2c3d4e')).toBeTruthy();
  });

  it('says a list older than 10 minutes is being read again, without alarm', async () => {
    await shown(answer(status({ state: 'stale', ageSeconds: 660 })));
    expect(screen.getByTestId('bazaar-status').textContent).toContain('read 11 min ago (reading it again).');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('no list at all: an error banner; still loading: says so; on sim: why nothing is payable', async () => {
    await shown(
      answer(
        status({
          state: 'failed',
          fetchedAt: null,
          ageSeconds: null,
          listed: 0,
          leftOut: null,
          error: { code: 'bazaar_timeout', message: 'no answer within 10 s', at: '2026-11-24T12:05:00.000Z' },
        }),
        [catalogWeather],
      ),
    );
    expect(screen.getByRole('alert').className).toBe('banner error');
    expect(screen.getByRole('alert').textContent).toContain('No x402 Bazaar list from x402.org/facilitator yet.');
    cleanup();

    await shown(answer(status({ state: 'loading', fetchedAt: null, ageSeconds: null, listed: 0, leftOut: null }), [catalogWeather]));
    expect(screen.getByTestId('bazaar-status').textContent).toBe('Reading the x402 Bazaar list of x402.org/facilitator…');
    cleanup();

    const note = 'this Coffer runs on sim: x402 is paid on devnet and mainnet only, so no Bazaar offer can be paid here';
    await shown(answer(status({ listed: 0, leftOut: { ...leftOut, invalid: 0, not_usdc: 0, other_network: 4 }, note }), [catalogWeather]));
    expect(screen.getByTestId('bazaar-status').textContent).toContain('4 more listed there left out: 4 on other networks.');
    expect(screen.getByTestId('bazaar-status').textContent).toContain(`${note}.`);
  });

  it('off: the catalog alone, and how to turn it on', async () => {
    await shown(answer(null, [catalogWeather]));
    expect(screen.queryByTestId('bazaar-status')).toBeNull();
    expect(screen.getByTestId('bazaar-off').textContent).toContain('coffer settings --bazaar <facilitator URL>');
  });
});
