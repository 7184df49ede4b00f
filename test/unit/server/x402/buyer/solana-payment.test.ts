import { describe, expect, it } from 'vitest';
import {
  address,
  appendTransactionMessageInstructions,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  blockhash as toBlockhash,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { randomBytes } from 'node:crypto';
import { checkSignedTransaction } from '../../../../../server/x402/buyer/solana-payment.js';
import { MEMO_PROGRAM_ADDRESS } from '../../../../../server/chain/solana/usdc-transfer.js';

/**
 * What Coffer reads back before it hands an x402 payment header out: the seller's fee payer, one
 * TransferChecked of exactly the amount of that mint from the payer's USDC account to the seller's,
 * signed by the payer; anything else of the payer's is refused and nothing is handed out.
 */
describe('checkSignedTransaction', async () => {
  const [payer, seller, feePayer, mintSigner] = await Promise.all([1, 2, 3, 4].map(() => generateKeyPairSigner()));
  const mint = mintSigner!.address;
  const ata = async (owner: Address) => (await findAssociatedTokenPda({ mint, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const requirement = {
    scheme: 'exact',
    network: 'solana-devnet',
    amount: 10_000n,
    asset: mint,
    payTo: seller!.address,
    feePayer: feePayer!.address,
    maxTimeoutSeconds: 60,
    extra: {},
  };
  const blockhash = getBase58Decoder().decode(randomBytes(32));
  const transfer = async (amount = 10_000n, to = seller!.address, authority: KeyPairSigner = payer!) =>
    getTransferCheckedInstruction({
      source: await ata(authority.address),
      mint,
      destination: await ata(to),
      authority,
      amount,
      decimals: 6,
    });
  const signed = async (instructions: Instruction[], fee: Address = feePayer!.address) =>
    getBase64EncodedWireTransaction(
      await partiallySignTransactionMessageWithSigners(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(fee === payer!.address ? payer! : createNoopSigner(fee), m),
          (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(blockhash), lastValidBlockHeight: 1n }, m),
          (m) => appendTransactionMessageInstructions(instructions, m),
        ),
      ),
    );
  const memo = getAddMemoInstruction({ memo: 'nonce' }, { programAddress: MEMO_PROGRAM_ADDRESS });
  // SetComputeUnitLimit(20,000), as the exact scheme puts first.
  const budget: Instruction = {
    programAddress: address('ComputeBudget111111111111111111111111111111'),
    data: new Uint8Array([2, 0x20, 0x4e, 0, 0]),
  };

  it("passes the offer's transaction and answers the payer's signature and the blockhash", async () => {
    const wire = await signed([budget, await transfer(), memo]);
    const checked = await checkSignedTransaction(wire, requirement, payer!.address);
    expect(checked.blockhash).toBe(blockhash);
    expect(checked.payerSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
  });

  it.each([
    ['the payer as fee payer', async () => signed([await transfer(), memo], payer!.address), /the fee payer/],
    ['another amount', async () => signed([await transfer(10_001n), memo]), /the amount/],
    ['another recipient', async () => signed([await transfer(10_000n, feePayer!.address), memo]), /the transfer accounts/],
    ['two transfers', async () => signed([await transfer(), await transfer(), memo]), /2 transfers/],
    ['no transfer', async () => signed([memo]), /0 transfers/],
    [
      "a SOL transfer of the payer's",
      async () => signed([await transfer(), getTransferSolInstruction({ source: payer!, destination: seller!.address, amount: 1n })]),
      /an instruction of 11111111111111111111111111111111/,
    ],
    ['bytes that are no transaction', async () => Buffer.from([1, 2, 3]).toString('base64'), /not what the offer asked/],
  ])('refuses %s: nothing is handed out', async (_label, make, why) => {
    await expect(checkSignedTransaction(await make(), requirement, payer!.address)).rejects.toThrow(why);
  });

  it('refuses a transaction the payer has not signed', async () => {
    const unsigned = await signed([budget, await transfer(10_000n, seller!.address, createNoopSigner(payer!.address) as never), memo]);
    await expect(checkSignedTransaction(unsigned, requirement, payer!.address)).rejects.toThrow(/no signature of the payer/);
  });
});
