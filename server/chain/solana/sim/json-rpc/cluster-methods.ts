import { z } from 'zod';
import { getBase64Encoder, getCompiledTransactionMessageDecoder } from '@solana/kit';
import { LAMPORTS_PER_SIGNATURE } from '../../rpc-shapes.js';
import { MAX_AIRDROP_LAMPORTS } from '../faucet.js';
import { RpcError } from './error.js';
import { API_VERSION, rpcMethod, type SimRpcMethod } from './method.js';
import { address, configOnly, noParams } from './params.js';

const SLOTS_PER_EPOCH = 432_000n;

/** The cluster's own questions (health, version, slot, epoch, blockhash, rent, fees) and its faucet. */
export const clusterMethods: Record<string, SimRpcMethod> = {
  getHealth: rpcMethod(noParams, () => 'ok'),
  getVersion: rpcMethod(noParams, () => ({ 'solana-core': API_VERSION, 'feature-set': 0 })),
  getGenesisHash: rpcMethod(noParams, ({ ledger }) => ledger.genesisHash),
  getSlot: rpcMethod(configOnly, ({ ledger }) => ledger.slot),
  getBlockHeight: rpcMethod(configOnly, ({ ledger }) => ledger.blockHeight),
  // Epochs of 432,000 slots, as on Solana's clusters: the slot's index within its own epoch.
  getEpochInfo: rpcMethod(configOnly, ({ ledger }) => ({
    absoluteSlot: ledger.slot,
    blockHeight: ledger.blockHeight,
    epoch: ledger.slot / SLOTS_PER_EPOCH,
    slotIndex: ledger.slot % SLOTS_PER_EPOCH,
    slotsInEpoch: SLOTS_PER_EPOCH,
    transactionCount: null,
  })),
  getLatestBlockhash: rpcMethod(configOnly, ({ ledger, withContext }) => {
    const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
    return withContext({ blockhash, lastValidBlockHeight });
  }),
  isBlockhashValid: rpcMethod(z.tuple([z.string()]).rest(z.unknown()), ({ ledger, withContext }, [blockhash]) =>
    withContext(ledger.isBlockhashUsable(blockhash)),
  ),
  getMinimumBalanceForRentExemption: rpcMethod(
    z
      .tuple([
        z
          .number()
          .int()
          .min(0)
          .max(10 * 1024 * 1024),
      ])
      .rest(z.unknown()),
    ({ ledger }, [size]) => ledger.svm.minimumBalanceForRentExemption(BigInt(size)),
  ),
  getFeeForMessage: rpcMethod(z.tuple([z.string()]).rest(z.unknown()), ({ ledger, withContext }, [encoded]) => {
    let message;
    try {
      message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(encoded));
    } catch {
      throw new RpcError(-32602, 'Invalid param: the message cannot be decoded');
    }
    // A node prices only a message whose blockhash it still takes.
    if (!ledger.isBlockhashUsable(message.lifetimeToken)) return withContext(null);
    return withContext(BigInt(LAMPORTS_PER_SIGNATURE) * BigInt(message.header.numSignerAccounts));
  }),
  // Nothing pays for priority here: every recent slot's fee is 0, as on an idle cluster.
  getRecentPrioritizationFees: rpcMethod(z.union([z.tuple([]), z.tuple([z.array(address).max(128)])]), ({ ledger }) => [
    { slot: ledger.slot, prioritizationFee: 0n },
  ]),
  requestAirdrop: rpcMethod(z.tuple([address, z.number().int().min(1)]).rest(z.unknown()), ({ faucet }, [to, lamports]) => {
    if (BigInt(lamports) > MAX_AIRDROP_LAMPORTS)
      throw new RpcError(-32602, `Invalid param: at most ${MAX_AIRDROP_LAMPORTS} lamports a request`);
    const sent = faucet.send(to, BigInt(lamports));
    if (sent.failure !== null) throw new RpcError(-32603, `Internal error: the airdrop did not land (${sent.failure})`);
    return sent.signature;
  }),
};
