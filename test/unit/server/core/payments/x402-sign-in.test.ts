import { afterEach, describe, expect, it } from 'vitest';
import { STORES, coreEngine, type CoreEngine, type StoreKind } from '../../../../fixtures/core-engine.js';
import { randomAddress } from '../../../../fixtures/memory-chain.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

/**
 * Sign-In-With-X on the engine alone (server/core/payments/x402-sign-in.ts): when Coffer signs a seller's
 * challenge with an agent's wallet, and every case where it does not. The proof's wire format is the
 * official package's, tested against a real seller in test/integration/x402-sign-in.test.ts.
 */
let core: CoreEngine;
afterEach(() => core?.close());

const SELLER = randomAddress();
const URL_PAID = 'https://api.example.test/forecast';

async function ready(store: StoreKind): Promise<CoreEngine> {
  core = await coreEngine({ store });
  core.chain.mint(SELLER, 1n);
  await core.fundedAgent('alpha', '1');
  return core;
}
const offer = (
  challenge: {
    domain?: string;
    uri?: string;
    chains?: { chainId: string; type: string }[];
    issuedAt?: string;
    expirationTime?: string;
  } = {},
) => ({
  url: URL_PAID,
  status: 402 as const,
  ...core.x402.answer402WithSignIn(SELLER, 10_000n, { domain: 'api.example.test', uri: URL_PAID, ...challenge }),
});
const signIn = (body: ReturnType<typeof offer>) => core.engine.signInX402(core.asAgent('alpha'), 'alpha', body);

describe.each(STORES)('on the %s ledger', (store) => {
  it("signs the challenge with the agent's wallet once it paid that seller, for this chain and this URL; moves nothing", async () => {
    const { chain, x402 } = await ready(store);
    await expectCofferError(signIn(offer()), 'not_paid_before');
    await core.x402Paid('alpha', { url: URL_PAID, status: 402, ...x402.answer402(SELLER, 10_000n) }, null);
    const wallet = core.store.getAgent(core.owner, 'alpha')!.walletAddress;
    const before = await chain.usdcBalance(wallet);
    const calls = new Map(chain.calls);
    const signed = await signIn(offer());
    expect(signed).toEqual({
      header: { name: 'SIGN-IN-WITH-X', value: `${wallet}@${x402.networks.sol.v2} for ${URL_PAID}` },
      address: wallet,
      chainId: x402.networks.sol.v2,
    });
    expect(chain.calls).toEqual(calls);
    expect(await chain.usdcBalance(wallet)).toBe(before);
    expect(core.store.listPayments(core.owner, 'alpha', 10)).toHaveLength(1);
  });

  it("never signs another site's challenge, another chain's, or for a stopped agent", async () => {
    const { x402 } = await ready(store);
    await core.x402Paid('alpha', { url: URL_PAID, status: 402, ...x402.answer402(SELLER, 10_000n) }, null);
    await expectCofferError(signIn(offer({ domain: 'evil.example.test' })), 'sign_in_wrong_origin');
    await expectCofferError(signIn(offer({ uri: 'https://evil.example.test/forecast' })), 'sign_in_wrong_origin');
    await expectCofferError(signIn(offer({ uri: 'not a url' })), 'sign_in_wrong_origin');
    // Of the site's origin, but with a user name that reads as another site on the signed lines.
    const asUser = new URL(URL_PAID);
    asUser.username = 'bank.example';
    await expectCofferError(signIn(offer({ uri: asUser.href })), 'sign_in_wrong_origin');
    await expectCofferError(
      signIn(offer({ chains: [{ chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519' }] })),
      'sign_in_not_offered',
    );
    await expectCofferError(signIn(offer({ chains: [{ chainId: x402.networks.sol.v2, type: 'eip191' }] })), 'sign_in_not_offered');
    await expectCofferError(
      core.engine.signInX402(core.asAgent('alpha'), 'alpha', { url: URL_PAID, status: 402, ...x402.answer402(SELLER, 10_000n) }),
      'sign_in_not_offered',
    );
    await core.engine.kill(core.asOwner, 'alpha');
    await expectCofferError(signIn(offer()), 'agent_suspended');
  });

  it("signs in only where the agent's policy still lets it pay that seller", async () => {
    const { x402 } = await ready(store);
    await core.x402Paid('alpha', { url: URL_PAID, status: 402, ...x402.answer402(SELLER, 10_000n) }, null);
    await core.engine.updatePolicy(core.asOwner, 'alpha', { allowedServices: [randomAddress()] });
    await expectCofferError(signIn(offer()), 'service_not_allowed');
    await core.engine.updatePolicy(core.asOwner, 'alpha', { allowedServices: [SELLER] });
    expect((await signIn(offer())).address).toBe(core.store.getAgent(core.owner, 'alpha')!.walletAddress);
    await core.engine.updatePolicy(core.asOwner, 'alpha', { expiresAt: new Date(core.clock.now() + 60_000).toISOString() });
    core.advance(2 * 60_000);
    await expectCofferError(signIn(offer()), 'policy_expired');
  });
});
