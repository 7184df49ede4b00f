import {
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction } from '@solana-program/token';
import { usdcTokenAccount } from '../../server/chain/solana/usdc-transfer.js';

/**
 * A seller outside the registry, paid at any price (a registry service's address is held to the
 * registry's price under any name). startCoffer opens its USDC account on the embedded chain; a
 * Coffer run as a process, openUnlistedSeller.
 */
export const UNLISTED_SELLER = '8qMLJrRVvt5Y3W1BbHHFx15zVgi7S1UJ4h34JhP4uDWp';

/**
 * Opens UNLISTED_SELLER's USDC account on the sim chain of a Coffer run as a process (`coffer serve`),
 * as anyone on this machine could through its Solana JSON-RPC: a payer airdropped SOL on the sim
 * opens it. (startCoffer opens it itself; a served Coffer opens only the catalog's recipients'.)
 */
export async function openUnlistedSeller(serveUrl: string): Promise<string> {
  const health = (await (await fetch(`${serveUrl}/v1/health`)).json()) as { usdcMint: string };
  const mint = address(health.usdcMint);
  const rpc = createSolanaRpc(`${serveUrl}/rpc`);
  const payer = await generateKeyPairSigner();
  await rpc.requestAirdrop(payer.address, 1_000_000_000n as never).send();
  const owner = address(UNLISTED_SELLER);
  const open = getCreateAssociatedTokenIdempotentInstruction({ payer, ata: await usdcTokenAccount(mint, owner), owner, mint });
  const { value: latest } = await rpc.getLatestBlockhash().send();
  const signed = await pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(payer, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash(latest, message),
    (message) => appendTransactionMessageInstructions([open], message),
    (message) => signTransactionMessageWithSigners(message),
  );
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
  return UNLISTED_SELLER;
}
