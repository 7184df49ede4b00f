import { describe, expect, it } from 'vitest';
import { KeyObject, sign } from 'node:crypto';
import { generateKeyPairSigner, getBase58Decoder, type Address, type KeyPairSigner } from '@solana/kit';
import { signedUsdcTransfer } from '../../../../../server/chain/solana/transfer-message.js';
import { transferRefusal } from '../../../../../server/chain/solana/transfer-errors.js';

const signers = await Promise.all(Array.from({ length: 3 }, () => generateKeyPairSigner()));
const [mint, from, to] = signers as [KeyPairSigner, KeyPairSigner, KeyPairSigner];
const byAddress = new Map(signers.map((signer) => [signer.address, signer]));
const signBytes = async (address: Address) => {
  const key = KeyObject.from(byAddress.get(address)!.keyPair.privateKey);
  return (message: Uint8Array) => new Uint8Array(sign(null, message, key));
};
const wire = async (createRecipientAccount: boolean) =>
  (
    await signedUsdcTransfer(
      {
        mint: mint.address,
        from: from.address,
        to: to.address,
        feePayer: from.address,
        amount: 5n,
        memo: 'm',
        reference: 'r',
        createRecipientAccount,
      },
      { blockhash: getBase58Decoder().decode(new Uint8Array(32).fill(7)), lastValidBlockHeight: 9n },
      signBytes,
    )
  ).txWire;

describe('why a transfer failed, read once for both chains', () => {
  it("is insufficient_funds only for the token program's error 1 at the transfer's own instruction", async () => {
    const withCreate = await wire(true);
    const withoutCreate = await wire(false);
    const code = (err: Parameters<typeof transferRefusal>[0], txWire: string) => transferRefusal(err, txWire, 'why').code;
    expect(code({ InstructionError: [1, { Custom: 1 }] }, withCreate)).toBe('insufficient_funds');
    expect(code({ InstructionError: [0, { Custom: 1 }] }, withoutCreate)).toBe('insufficient_funds');
    // Error 1 of the account creation (the system program's: the fee payer short of SOL for rent) is not.
    expect(code({ InstructionError: [0, { Custom: 1 }] }, withCreate)).toBe('chain_rejected');
    expect(code({ InstructionError: [1, { Custom: 1 }] }, withoutCreate)).toBe('chain_rejected');
    expect(code({ InstructionError: [1, { Custom: 17 }] }, withCreate)).toBe('chain_rejected');
    expect(code('BlockhashNotFound', withCreate)).toBe('chain_rejected');
    expect(transferRefusal('BlockhashNotFound', withCreate, 'BlockhashNotFound').message).toBe(
      'the transaction failed on chain: BlockhashNotFound',
    );
  });
});
