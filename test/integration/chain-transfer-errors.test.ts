import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Chain, TransferRequest } from '../../server/core/ports/chain.js';
import { TestCluster } from '../fixtures/test-cluster.js';
import { expectCofferError } from '../helpers/expect-error.js';
import { micro, startCoffer, type TestCoffer } from '../helpers/coffer.js';

/**
 * Why a transfer failed, read the same way by both chain adapters (server/chain/transfer-errors.ts):
 * the embedded chain and an RPC cluster (whose preflight runs the transaction for real) are given the
 * same failing transfers and must name them alike.
 */
let cluster: TestCluster;
const coffers: { name: string; t: TestCoffer }[] = [];
beforeAll(async () => {
  cluster = await new TestCluster().start();
  coffers.push({ name: 'the embedded chain', t: await startCoffer() });
  const rpc = await startCoffer({ network: cluster.url, usdcMint: cluster.mint.address });
  cluster.airdrop(rpc.owner);
  await cluster.depositFromOutside(rpc.owner, micro('5'));
  coffers.push({ name: 'an RPC cluster', t: rpc });
});
afterAll(async () => {
  for (const { t } of coffers) await t.stop();
  await cluster.stop();
});

const transfer = async (chain: Chain, request: Omit<TransferRequest, 'memo' | 'reference'>) => {
  const reference = `test-${Math.random().toString(36).slice(2)}`;
  return chain.submitTransfer(await chain.prepareTransfer({ ...request, memo: reference, reference }));
};

describe.each([0, 1])('a transfer that cannot go through (chain %#)', (which) => {
  it('more USDC than the wallet holds is insufficient_funds, with or without the recipient account made in the same transaction', async () => {
    const { t } = coffers[which]!;
    const chain = t.coffer.chain;
    const held = await chain.usdcBalance(t.owner);
    const newWallet = (await generateKeyPairSigner()).address;
    const base = { from: t.owner, to: newWallet, feePayer: t.owner };
    await expectCofferError(transfer(chain, { ...base, amount: held + 1n, createRecipientAccount: true }), 'insufficient_funds');
    // The recipient's account made by a transfer that does go through; then short again, without making it.
    await transfer(chain, { ...base, amount: 1n, createRecipientAccount: true });
    await expectCofferError(transfer(chain, { ...base, amount: held, createRecipientAccount: false }), 'insufficient_funds');
  });

  it('any other failure is chain_rejected: here a recipient whose USDC account does not exist, not made', async () => {
    const { t } = coffers[which]!;
    const nowhere = (await generateKeyPairSigner()).address;
    await expectCofferError(
      transfer(t.coffer.chain, { from: t.owner, to: nowhere, feePayer: t.owner, amount: 1n, createRecipientAccount: false }),
      'chain_rejected',
    );
  });
});
