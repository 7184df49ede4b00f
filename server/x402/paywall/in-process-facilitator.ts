import { createWalletClient, defineChain, http, publicActions } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { KeyPairSigner } from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorSvmSigner } from '@x402/svm';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { x402Networks } from '../../chain/solana/networks.js';
import { x402EvmNetworks } from '../../chain/evm/networks.js';
import type { Facilitator } from './facilitator.js';

/** The facilitator's account on an EVM chain: it sends each authorization and pays its gas. */
export type EvmFacilitatorAccount = { account: PrivateKeyAccount; rpcUrl: string; chainId: number };

/**
 * The official facilitator (`@x402/core` with `@x402/svm`, and `@x402/evm` where `base` is given) in
 * this process. On Solana it pays fees from `feePayer`, on a network x402 names (devnet, mainnet, or
 * the demo's local cluster, which it knows as devnet); on an EVM chain its account sends each payment.
 */
export function inProcessFacilitator(options: {
  feePayer: KeyPairSigner;
  rpcUrl: string;
  network: string;
  base?: EvmFacilitatorAccount;
}): Facilitator {
  const facilitator = new x402Facilitator();
  const names = x402Networks(options.network);
  if (names === null) throw new Error(`x402 names no network ${options.network}: its facilitator runs on devnet or mainnet`);
  registerExactSvmScheme(facilitator, {
    signer: toFacilitatorSvmSigner(options.feePayer, { defaultRpcUrl: options.rpcUrl }),
    networks: names.v2 as `${string}:${string}`,
  });
  const { base } = options;
  if (base !== undefined) {
    registerExactEvmScheme(facilitator, {
      signer: evmFacilitatorSigner(base),
      networks: x402EvmNetworks(base.chainId).v2 as `${string}:${string}`,
    });
  }
  // One EVM settlement at a time: the account's transactions take its nonces in turn (viem's wallet
  // client would give two settlements at once one nonce, and one of them would fail).
  let evmTurn: Promise<unknown> = Promise.resolve();
  const settle = (payload: PaymentPayload, requirements: PaymentRequirements) => {
    if (!requirements.network.startsWith('eip155:')) return facilitator.settle(payload, requirements);
    const settled = evmTurn.then(() => facilitator.settle(payload, requirements));
    evmTurn = settled.catch(() => undefined);
    return settled;
  };
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle,
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<Facilitator['getSupported']>>,
  };
}

/** The official EVM facilitator's signer for an account over an RPC: viem's wallet client, each call as the package types it. */
export function evmFacilitatorSigner({ account, rpcUrl, chainId }: EvmFacilitatorAccount) {
  const chain = defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const wallet = createWalletClient({ chain, transport: http(rpcUrl, { retryCount: 0 }), account }).extend(publicActions);
  return toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => wallet.readContract(args as Parameters<typeof wallet.readContract>[0]),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
    writeContract: (args) => wallet.writeContract(args as Parameters<typeof wallet.writeContract>[0]),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    getCode: (args) => wallet.getCode(args),
  });
}
