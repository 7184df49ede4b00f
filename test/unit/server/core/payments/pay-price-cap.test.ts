import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

/**
 * The registry's price caps what its services are paid on /pay, by whatever name the payment gives:
 * a registry service's address paid under a name outside the registry is held to the dearest price
 * the registry lists for the services paid there, as an x402 offer to that address is.
 */
let core: CoreEngine;
afterEach(() => core?.close());

describe.each(STORES)('on the %s ledger', (store) => {
  it("a registry service's address paid under another name is capped at the dearest listed price there", async () => {
    core = await coreEngine({ store });
    const quotes = core.store.getService('demo-quotes')!;
    core.chain.mint(quotes.payTo, 1n);
    await core.fundedAgent('renamer', '1');
    const listedThere = core.store.servicesPaidTo(quotes.payTo).map((service) => service.pricePerCall);
    expect(listedThere).toEqual(['0.01', '0.01']);
    await expectCofferError(
      core.paid('renamer', { service: 'quotes-premium', recipient: quotes.payTo, amount: '0.45' }),
      'price_above_registry',
      // The services paid there named, so that their prices can be looked up by name (coffer services ID).
      `0.45 USDC is more than the 0.01 USDC the registry lists for the services paid to ${quotes.payTo} (demo-quotes, demo-weather)`,
    );
    expect(core.store.listPayments(core.owner, 'renamer', 10)).toHaveLength(0);
    // At the listed price, under that name, it is paid; an address no service is paid to has no cap.
    expect((await core.paid('renamer', { service: 'quotes-premium', recipient: quotes.payTo, amount: '0.01' })).amount).toBe('0.01');
    const elsewhere = randomAddress();
    core.chain.mint(elsewhere, 1n);
    expect((await core.paid('renamer', { service: 'my-own-api', recipient: elsewhere, amount: '0.45' })).amount).toBe('0.45');
    // The owner's treasury is paid for images by /generate alone (at the model's price): money an
    // agent sends back there under a name of its own buys none of them, and is not capped by them.
    expect((await core.paid('renamer', { service: 'give-back', recipient: core.owner, amount: '0.50' })).amount).toBe('0.50');
  });

  it('the only registry service paid at an address is the one paid there under any name: its budget and allowedServices hold', async () => {
    core = await coreEngine({ store });
    const geocode = core.store.getService('geocode')!;
    expect(core.store.servicesPaidTo(geocode.payTo).map((service) => service.id)).toEqual(['geocode']);
    core.chain.mint(geocode.payTo, 1n);
    await core.fundedAgent('dodger', '1', { allowedServices: ['geocode'], budgets: [{ count: 1, window: 'day', service: 'geocode' }] });
    const paid = await core.paid('dodger', { service: 'geocode', amount: '0.001' });
    core.advance(1_000);
    for (const service of ['geocode-2', 'GEOCODE', 'geo']) {
      await expectCofferError(
        core.paid('dodger', { service, recipient: geocode.payTo, amount: '0.001' }),
        'budget_exceeded',
        /1 payment a day for geocode/,
      );
    }
    expect(core.store.listPayments(core.owner, 'dodger', 10).map((payment) => payment.id)).toEqual([paid.paymentId]);
    // Allowed, it is paid as geocode: its history names the service its money went to.
    await core.engine.updatePolicy(core.asOwner, 'dodger', { budgets: [] });
    const renamed = await core.paid('dodger', { service: 'geo', recipient: geocode.payTo, amount: '0.001' });
    expect(core.store.getPayment(renamed.paymentId)).toMatchObject({ serviceId: 'geocode', recipient: geocode.payTo });
  });
});
