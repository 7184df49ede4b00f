import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, getBase58Decoder } from '@solana/kit';
import type { PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { TestCluster } from '../fixtures/test-cluster.js';
import { DEVNET } from '../fixtures/x402-peers.js';
import { memoryVault } from '../fixtures/core-engine.js';
import { templatedExactScheme } from '../../server/x402/buyer/exact-template.js';

/**
 * The x402 exact transaction Coffer assembles from a template is the official package's, byte for
 * byte: for any amount, seller memo and blockhash, the templated scheme and `@x402/svm`'s own
 * scheme (given the same blockhash and memo) sign the very same transaction.
 */
describe('the templated x402 exact scheme', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
  });
  afterAll(async () => cluster.stop());

  it('signs what @x402/svm signs, for any terms; other shapes are left to the package', async () => {
    const vault = memoryVault();
    const payer = await vault.createWallet({ kind: 'random' });
    const signer = await vault.signer(payer);
    const [seller, feePayer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const official = new ExactSvmScheme(signer, { rpcUrl: cluster.url });
    const templated = templatedExactScheme(new ExactSvmScheme(signer, { rpcUrl: cluster.url }), payer, () => vault.signBytes(payer));
    const requirements = (amount: bigint, extra: Record<string, unknown>): PaymentRequirements => ({
      scheme: 'exact',
      network: DEVNET.v2,
      amount: amount.toString(),
      asset: cluster.mint.address,
      payTo: seller.address,
      maxTimeoutSeconds: 60,
      extra: { feePayer: feePayer.address, ...extra },
    });
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }),
        fc.string({ minLength: 1, maxLength: 200 }).filter((memo) => new TextEncoder().encode(memo).length <= 256),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        async (amount, memo, hash) => {
          const extra = { memo, recentBlockhash: getBase58Decoder().decode(hash), lastValidBlockHeight: '500' };
          const ours = await templated.createPaymentPayload(2, requirements(amount, extra));
          const theirs = await official.createPaymentPayload(2, requirements(amount, extra));
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 60 },
    );
    // Without a seller memo both write a random 16-byte nonce in hex: the rest is the same.
    const blockhash = getBase58Decoder().decode(randomBytes(32));
    const unmemoed = (await templated.createPaymentPayload(2, requirements(10_000n, { recentBlockhash: blockhash }))).payload as {
      transaction: string;
    };
    const wire = Buffer.from(unmemoed.transaction, 'base64');
    const nonce = /[0-9a-f]{32}/.exec(wire.toString('latin1'))?.[0];
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    const same = await official.createPaymentPayload(2, requirements(10_000n, { recentBlockhash: blockhash, memo: nonce }));
    expect(unmemoed.transaction).toBe((same.payload as { transaction: string }).transaction);
    // A memo that is no string, or an amount past a u64: the package's own doing (it writes 5 as "5"; it refuses the amount).
    const numeric = { memo: 5, recentBlockhash: blockhash, lastValidBlockHeight: '1' };
    expect(await templated.createPaymentPayload(2, requirements(10_000n, numeric))).toEqual(
      await official.createPaymentPayload(2, requirements(10_000n, numeric)),
    );
    const huge = requirements(2n ** 64n, { recentBlockhash: blockhash, memo: 'x' });
    const ourError = await templated.createPaymentPayload(2, huge).catch((error: Error) => error.message);
    const theirError = await official.createPaymentPayload(2, huge).catch((error: Error) => error.message);
    expect(ourError).toBe(theirError);
    // No blockhash given (the package reads one itself), or v1: the package's own transaction.
    const without = await templated.createPaymentPayload(2, requirements(10_000n, { memo: 'x' }));
    expect((without.payload as { transaction: string }).transaction).toMatch(/^[A-Za-z0-9+/=]+$/);
  });
});
