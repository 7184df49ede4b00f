import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { generateKeyPairSync, sign } from 'node:crypto';
import { getAddressDecoder } from '@solana/kit';
import type { SimLedger } from './ledger.js';
import { addressToBytes } from '../address-memo.js';
import { LAMPORTS_PER_SIGNATURE } from '../rpc-shapes.js';

/** The most one request may ask (test SOL; a cluster's faucet gives a few). */
export const MAX_AIRDROP_LAMPORTS = 1_000n * 1_000_000_000n;
const TRANSFER = 2;

/**
 * `requestAirdrop` on the embedded chain: test SOL sent by a faucet wallet of this process in a real
 * transaction (a System transfer it signs), so it has a signature, lands in the chain's log and is
 * confirmed as any transaction is (kit's `airdropFactory` waits for it). The faucet is given what it
 * sends just before, by LiteSVM's own airdrop, and is a new wallet each time: it holds nothing after
 * and its key never leaves memory.
 */
export function createSimFaucet(ledger: SimLedger) {
  return {
    /** Sends `lamports` to `to`; answers the transaction's signature, or why it did not land. */
    send(to: string, lamports: bigint): { signature: string; failure: string | null } {
      // A faucet wallet per request: two equal requests in one block would otherwise be one
      // transaction (the same message, the same signature), and the second would not land.
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const faucet = getAddressDecoder().decode(new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url')));
      ledger.airdrop(faucet, lamports + BigInt(LAMPORTS_PER_SIGNATURE));
      const { blockhash } = ledger.latestBlockhash();
      const data = Buffer.alloc(12);
      data.writeUInt32LE(TRANSFER, 0);
      data.writeBigUInt64LE(lamports, 4);
      // Legacy message: 1 signer (the faucet, writable), 0 read-only signers, 1 read-only unsigned (the program).
      const message = Buffer.concat([
        Buffer.from([1, 0, 1, 3]),
        addressToBytes(faucet),
        addressToBytes(to),
        addressToBytes(SYSTEM_PROGRAM_ADDRESS),
        addressToBytes(blockhash),
        Buffer.from([1, 2, 2, 0, 1, data.length]),
        data,
      ]);
      const wire = Buffer.concat([Buffer.from([1]), sign(null, message, privateKey), message]);
      const { signature, failure } = ledger.execute(wire.toString('base64'));
      return { signature, failure: failure === null ? null : failure.description };
    },
  };
}
