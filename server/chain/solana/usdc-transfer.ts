import {
  address,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getBase64Encoder,
  type Address,
  type Instruction,
  type TransactionSigner,
} from '@solana/kit';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  TRANSFER_CHECKED_DISCRIMINATOR,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTokenSize,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { getAddMemoInstruction } from '@solana-program/memo';
import { USDC_DECIMALS } from '../../wire/money.js';
import type { TransferFound } from '../../core/ports/chain.js';

/** SPL Memo v2, the memo program every Solana cluster (and LiteSVM) ships. */
export const MEMO_PROGRAM_ADDRESS = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const LEGACY_MEMO_PROGRAM_ADDRESS = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';

const tokenAccounts = new Map<string, Promise<Address>>();
const derived = new Map<string, Address>();
const TOKEN_ACCOUNT_CACHE_LIMIT = 10_000;

/**
 * The associated token account of a wallet for a mint. Deriving it costs a search for an off-curve
 * point, and every payment needs two, so derivations are memoised (bounded; they never change).
 */
export function usdcTokenAccount(mint: Address, owner: Address): Promise<Address> {
  const key = `${mint}:${owner}`;
  let account = tokenAccounts.get(key);
  if (!account) {
    if (tokenAccounts.size >= TOKEN_ACCOUNT_CACHE_LIMIT) {
      tokenAccounts.clear();
      derived.clear();
    }
    account = findAssociatedTokenPda({ mint, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS }).then(([ata]) => {
      derived.set(key, ata);
      return ata;
    });
    tokenAccounts.set(key, account);
  }
  return account;
}

/** The token accounts of many wallets: those derived before at once, the others derived together. */
export async function usdcTokenAccounts(mint: Address, owners: Address[]): Promise<Address[]> {
  const known = owners.map((owner) => derived.get(`${mint}:${owner}`));
  if (known.every((account) => account !== undefined)) return known as Address[];
  return Promise.all(owners.map((owner, index) => known[index] ?? usdcTokenAccount(mint, owner)));
}

/**
 * The instructions of one Coffer transfer: create the recipient's USDC account when asked (rent paid
 * by the fee payer), one TransferChecked from the sender's account, a Memo with the payment's memo
 * (the paid API's nonce) and, when that is not already unique, a second Memo with Coffer's reference.
 */
export async function usdcTransferInstructions(input: {
  mint: Address;
  from: TransactionSigner;
  to: Address;
  amount: bigint;
  memo: string;
  reference: string;
  feePayer: TransactionSigner;
  createRecipientAccount: boolean;
}): Promise<Instruction[]> {
  const source = await usdcTokenAccount(input.mint, input.from.address);
  const destination = await usdcTokenAccount(input.mint, input.to);
  const memo = (text: string) => getAddMemoInstruction({ memo: text }, { programAddress: MEMO_PROGRAM_ADDRESS });
  return [
    ...(input.createRecipientAccount
      ? [getCreateAssociatedTokenIdempotentInstruction({ payer: input.feePayer, ata: destination, owner: input.to, mint: input.mint })]
      : []),
    getTransferCheckedInstruction({
      source,
      mint: input.mint,
      destination,
      authority: input.from,
      amount: input.amount,
      decimals: USDC_DECIMALS,
    }),
    memo(input.memo),
    ...(input.reference === input.memo ? [] : [memo(`coffer:${input.reference}`)]),
  ];
}

const readU64 = (data: Uint8Array, offset: number): bigint => new DataView(data.buffer, data.byteOffset + offset, 8).getBigUint64(0, true);

/**
 * A token account's amount, read where the SPL Token layout keeps it (after the mint and the owner):
 * balances of many wallets are read without decoding each account.
 */
export const tokenAmount = (data: Uint8Array): bigint => readU64(data, 64);

/**
 * The wallet a token account belongs to, read where the SPL Token layout keeps it (after the mint);
 * null for data that is no token account's (a wallet's, another program's).
 */
export const tokenOwner = (data: Uint8Array): Address | null =>
  data.length === getTokenSize() ? (getBase58Decoder().decode(data.subarray(32, 64)) as Address) : null;

/**
 * Whether a wire transaction (base64) carries exactly the memos usdcTransferInstructions writes for a
 * payment: its memo, then `coffer:<reference>` (the memo alone where it is the reference). Security:
 * any other transaction of the wallet's, one whose memo merely names the reference (an agent may
 * write `coffer:<id>` as a paywall nonce), is not that payment.
 */
export function carriesMemos(txWireBase64: string, memo: string, reference: string): boolean {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(txWireBase64));
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  if (!('instructions' in message)) return false;
  const memos = message.instructions
    .filter((instruction) => {
      const program = message.staticAccounts[instruction.programAddressIndex];
      return program === MEMO_PROGRAM_ADDRESS || program === LEGACY_MEMO_PROGRAM_ADDRESS;
    })
    .map((instruction) => new TextDecoder().decode(new Uint8Array(instruction.data ?? [])));
  const written = reference === memo ? [memo] : [memo, `coffer:${reference}`];
  return memos.length === written.length && memos.every((each, index) => each === written[index]);
}

/**
 * Reads the USDC transfer out of a signed wire transaction (base64), the same way for the sim chain
 * and for RPC (`getTransaction` with base64 encoding). Only a TransferChecked of the token program
 * counts; the credited wallet is named only when the credited account is that wallet's ATA.
 */
export async function decodeUsdcTransfer(
  txWireBase64: string,
  outcome: { succeeded: boolean; error: string | null; blockTime: number | null; slot: bigint | null },
): Promise<TransferFound | null> {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(txWireBase64));
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  // Coffer sends legacy/v0 messages; a v1 message is nothing Coffer wrote.
  if (!('instructions' in message)) return null;
  const accounts = message.staticAccounts;
  const signature = Object.values(transaction.signatures)[0];
  if (!signature) return null;

  let transfer: { from: string; toTokenAccount: string; mint: string; amount: bigint } | null = null;
  let memo: string | null = null;
  const ataOwners = new Map<string, string>();
  for (const instruction of message.instructions) {
    const program = accounts[instruction.programAddressIndex];
    const keys = (instruction.accountIndices ?? []).map((index) => accounts[index]);
    const data = new Uint8Array(instruction.data ?? []);
    if (program === TOKEN_PROGRAM_ADDRESS && data[0] === TRANSFER_CHECKED_DISCRIMINATOR && data.length >= 10 && keys.length >= 4) {
      if (transfer !== null) return null; // Coffer transfers carry exactly one TransferChecked
      transfer = { from: String(keys[3]), toTokenAccount: String(keys[2]), mint: String(keys[1]), amount: readU64(data, 1) };
    } else if (program === ASSOCIATED_TOKEN_PROGRAM_ADDRESS && keys.length >= 4) {
      ataOwners.set(String(keys[1]), String(keys[2]));
    } else if ((program === MEMO_PROGRAM_ADDRESS || program === LEGACY_MEMO_PROGRAM_ADDRESS) && memo === null) {
      // The first memo is the payment's; a later one is Coffer's own reference.
      memo = new TextDecoder().decode(data);
    }
  }
  if (transfer === null) return null;

  // The credited wallet: from the ATA-create instruction, else by deriving and comparing.
  let to: string | null = ataOwners.get(transfer.toTokenAccount) ?? null;
  if (to !== null && (await usdcTokenAccount(address(transfer.mint), address(to))) !== transfer.toTokenAccount) to = null;

  return {
    txSignature: getBase58Decoder().decode(signature as Uint8Array),
    succeeded: outcome.succeeded,
    error: outcome.error,
    from: transfer.from,
    toTokenAccount: transfer.toTokenAccount,
    to,
    mint: transfer.mint,
    amount: transfer.amount,
    memo,
    blockTime: outcome.blockTime,
    slot: outcome.slot,
  };
}
