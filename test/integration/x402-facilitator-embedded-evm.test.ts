/* eslint-disable @typescript-eslint/no-explicit-any -- the official packages' answers are read loosely: the tests assert their shape */
import { describe, expect, it } from 'vitest';
import { createPublicClient, getAddress, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { x402Client } from '@x402/core/client';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from '@x402/evm/exact/facilitator';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { EMBEDDED_EVM_CHAIN_ID, EMBEDDED_EVM_VIEM_CHAIN } from '../../server/chain/evm/sim/chain.js';
import { deployAgent, type TestCoffer } from '../helpers/coffer.js';
import { acrossRestart } from '../helpers/restart.js';
import { payUsdc } from '../helpers/pay.js';
import { evmFacilitatorSigner } from '../../server/x402/paywall/in-process-facilitator.js';
import { baseX402Payments } from '../../server/x402/buyer/base-payment.js';
import { toRequirement } from '../../server/x402/buyer/offer-terms.js';
import type { EvmSigners } from '../../server/chain/evm/signers.js';
import { useCoffer } from '../helpers/server-fixture.js';

/**
 * Issue 49, point 3: the embedded EVM chain answers Ethereum JSON-RPC to the official x402
 * facilitator, as Base Sepolia's nodes do. The official `@x402/evm` buyer signs an `exact` payment
 * (EIP-3009) with a key of its own; the official facilitator verifies and settles it over
 * `coffer serve`'s `/evm-rpc` with an account that pays the gas; the money moves on the chain, a
 * replay and a tampered payment are refused, and the settlement is still there after a restart.
 */
const NETWORK = `eip155:${EMBEDDED_EVM_CHAIN_ID}` as const;

async function officialPeers(t: TestCoffer) {
  const rpc = `${t.url}/evm-rpc`;
  const chain = createPublicClient({ chain: EMBEDDED_EVM_VIEM_CHAIN, transport: http(rpc, { retryCount: 0 }) });
  const usdc = (await t.api('GET', '/v1/health')).body.base.usdc as Address;
  const [name, version] = await Promise.all(
    (['name', 'version'] as const).map((functionName) => chain.readContract({ address: usdc, abi: USDC_ABI, functionName })),
  );
  // The buyer: a key of its own, given test USDC by an agent's payment on Base.
  const buyer = privateKeyToAccount(generatePrivateKey());
  const { apiKey } = await deployAgent(t, 'funds-buyer', { dailyBudget: '10', maxPerPayment: '5' });
  expect((await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '5', rail: 'base' } })).status).toBe(200);
  expect((await t.api('POST', t.withOwner('/v1/agents/funds-buyer/allocate'), { body: { amount: '3', rail: 'base' } })).status).toBe(200);
  const funded = await payUsdc(t, 'funds-buyer', apiKey, { service: 'buyer', recipient: buyer.address, amount: '2' });
  expect(funded.status, JSON.stringify(funded.body)).toBe(200);
  // The facilitator's account, given test ETH for gas by the embedded chain's faucet.
  const relayer = privateKeyToAccount(generatePrivateKey());
  await t.coffer.base!.chain.prepareFeePayer(relayer.address);
  const signer = evmFacilitatorSigner({ account: relayer, rpcUrl: rpc, chainId: EMBEDDED_EVM_CHAIN_ID });
  const facilitator = new x402Facilitator().register(NETWORK, new ExactEvmFacilitatorScheme(signer));
  const client = x402Client.fromConfig({
    schemes: [{ network: NETWORK, client: new ExactEvmClientScheme(toClientEvmSigner(buyer)) }],
    // The test token is no network's default USDC: the official client takes it only when allowed.
    spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc, maxAmountPerPayment: '1000000' }] },
  });
  const seller = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const requirements: PaymentRequirements = {
    scheme: 'exact',
    network: NETWORK,
    asset: usdc,
    amount: '10000',
    payTo: seller,
    maxTimeoutSeconds: 300,
    extra: { name, version },
  };
  const balanceOf = (address: Address) => chain.readContract({ address: usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [address] });
  const pay = () =>
    client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'https://seller.example/data', description: 'data', mimeType: 'application/json' },
      accepts: [requirements],
    });
  return { facilitator, requirements, pay, balanceOf, buyer, seller, chain };
}

describe('the official x402 facilitator on the embedded EVM chain', () => {
  it('verifies and settles an official buyer’s exact payment once; a replay and a tampered one are refused; it survives a restart', async () => {
    await acrossRestart(
      async (t) => {
        const { facilitator, requirements, pay, balanceOf, buyer, seller, chain } = await officialPeers(t);
        const payload = await pay();
        expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true, payer: buyer.address });
        const settled = await facilitator.settle(payload, requirements);
        expect(settled).toMatchObject({ success: true, network: requirements.network, payer: buyer.address });
        expect(await balanceOf(seller)).toBe(10_000n);
        expect(await balanceOf(buyer.address)).toBe(2_000_000n - 10_000n);
        const receipt = await chain.getTransactionReceipt({ hash: settled.transaction as `0x${string}` });
        expect(receipt.status).toBe('success');

        // The same authorization again: used on chain, refused by both.
        expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: false });
        expect(await facilitator.settle(payload, requirements)).toMatchObject({ success: false });
        // A payment whose amount was raised after signing: its signature is not the buyer's for it.
        const fresh = (await pay()) as any;
        const tampered = { ...fresh, payload: { ...fresh.payload, authorization: { ...fresh.payload.authorization, value: '20000' } } };
        const raised = { ...requirements, amount: '20000' };
        expect(await facilitator.verify(tampered, raised)).toMatchObject({ isValid: false });
        expect(await balanceOf(seller)).toBe(10_000n);
        return { seller, hash: settled.transaction, buyer: buyer.address };
      },
      async (t, { seller, hash, buyer }) => {
        // The chain after a restart is its journal replayed: the facilitator's transaction is there.
        const chain = createPublicClient({ chain: EMBEDDED_EVM_VIEM_CHAIN, transport: http(`${t.url}/evm-rpc`, { retryCount: 0 }) });
        const usdc = (await t.api('GET', '/v1/health')).body.base.usdc as Address;
        const balanceOf = (address: Address) =>
          chain.readContract({ address: usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [address] });
        expect(await balanceOf(seller)).toBe(10_000n);
        expect(await balanceOf(buyer)).toBe(1_990_000n);
        expect((await chain.getTransactionReceipt({ hash: hash as `0x${string}` })).status).toBe('success');
      },
    );
  });
});

describe("Coffer's x402 authorization on Base, signed again for the same payment", () => {
  const t = useCoffer();

  // Helper 196: a held purchase approved on the old Coffer after its backup, approved again on the
  // Coffer restored from it, was signed anew with another nonce and paid twice. Its nonce is the
  // payment's now (as /pay's on Base): the token runs it once, and the chain says where.
  it('runs once at most: the facilitator refuses the second, and the chain names where the first landed', async () => {
    const { facilitator, requirements, balanceOf, buyer, seller } = await officialPeers(t);
    const usdc = requirements.asset as Address;
    const domain = {
      name: requirements.extra!.name as string,
      version: requirements.extra!.version as string,
      chainId: EMBEDDED_EVM_CHAIN_ID,
      verifyingContract: usdc,
    };
    const payments = baseX402Payments({
      chain: { chainId: EMBEDDED_EVM_CHAIN_ID, usdc, domain: async () => domain },
      signers: { evmAccount: async () => buyer } as unknown as EvmSigners,
    });
    const source = { x402Version: 2, resource: { url: 'https://seller.example/data' }, accepts: [requirements] };
    const offer = { x402Version: 2 as const, requirements: [toRequirement(requirements)], source };
    const since = Date.now();
    // The second signed a second later, as after a restore: another authorization (its end), the same nonce.
    const signFor = () => payments.sign(offer, offer.requirements[0]!, buyer.address, 'pay_held');
    const signed = [await signFor(), await new Promise((resolve) => setTimeout(resolve, 1_100)).then(signFor)];
    const payloadOf = (header: { value: string }) => JSON.parse(Buffer.from(header.value, 'base64').toString('utf8'));
    const [first, again] = signed.map((each) => payloadOf(each.header));
    expect(again.payload.authorization.nonce).toBe(first.payload.authorization.nonce);
    expect(again.payload.signature).not.toBe(first.payload.signature);

    const settled = await facilitator.settle(first, requirements);
    expect(settled).toMatchObject({ success: true });
    expect(await facilitator.verify(again, requirements)).toMatchObject({ isValid: false });
    expect(await facilitator.settle(again, requirements)).toMatchObject({ success: false });
    expect(await balanceOf(seller)).toBe(10_000n);
    // The second's fate, as reconciliation asks it: the nonce ran, in the first's transaction.
    const fate = await t.coffer.base!.chain.fateOfPayerSigned({
      payer: buyer.address,
      payerSignature: again.payload.authorization.nonce,
      txWire: signed[1]!.txWire,
      lifetimeEnd: signed[1]!.lifetimeEnd,
      since,
      hint: null,
    });
    expect(fate).toEqual({ state: 'succeeded', landedAs: (settled.transaction as string).toLowerCase() });
  });
});
