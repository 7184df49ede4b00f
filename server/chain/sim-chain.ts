import { LiteSVM, FailedTransactionMetadata } from 'litesvm';
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  getCompiledTransactionMessageDecoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type EncodedAccount,
  type Instruction,
  type Transaction,
  type TransactionSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  decodeToken,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
} from '@solana-program/token';
import { getAddMemoInstruction } from '@solana-program/memo';
import { CofferError } from '../core/errors.js';
import { USDC_DECIMALS } from '../core/money.js';
import type { Chain, PreparedTransfer, TransactionFate, TransferFound, TransferRequest } from '../core/ports/chain.js';
import type { Clock } from '../core/ports/keys.js';
import type { WalletKeyVault } from '../keys/key-vault.js';
import { MEMO_PROGRAM_ADDRESS, decodeUsdcTransfer, usdcTokenAccount, usdcTransferInstructions } from './usdc-transfer.js';

/** One persisted account of the embedded chain. */
export interface SimAccountRow {
  address: string;
  lamports: bigint;
  owner: string;
  data: Uint8Array;
  executable: boolean;
}

export interface SimTransactionRow {
  signature: string;
  wire: string;
  slot: bigint;
  blockTime: number;
  error: string | null;
}

/** What the sim chain needs from storage: its accounts and its transaction log, written together. */
export interface SimChainStore {
  loadAccounts(): SimAccountRow[];
  /** Writes the accounts a transaction touched and the transaction itself in one SQLite transaction. */
  commit(accounts: SimAccountRow[], transaction: SimTransactionRow | null): void;
  findTransaction(signature: string): SimTransactionRow | null;
  getMeta(key: string): string | null;
  setMeta(key: string, value: string): void;
}

const ONE_SOL = 1_000_000_000n;
const MINT_META = 'sim.usdc_mint';
const MINT_AUTHORITY_META = 'sim.usdc_mint_authority';

/**
 * The embedded chain: LiteSVM 1.x running the real SPL Token, Associated Token and Memo programs
 * in-process. Every executed transaction and every account it touched is written to SQLite, so the
 * chain survives restarts; a transaction that was executed but not yet persisted when the process
 * died is gone with the in-memory state, exactly as if it never landed.
 */
export class SimChain implements Chain {
  readonly network = 'sim';
  readonly isSim = true;

  private constructor(
    private readonly svm: LiteSVM,
    private readonly store: SimChainStore,
    private readonly vault: WalletKeyVault,
    private readonly clock: Clock,
    readonly usdcMint: Address,
    private readonly mintAuthority: Address,
  ) {}

  static async open(store: SimChainStore, vault: WalletKeyVault, clock: Clock): Promise<SimChain> {
    const svm = new LiteSVM();
    for (const row of store.loadAccounts()) {
      svm.setAccount({
        address: address(row.address),
        lamports: lamports(row.lamports),
        programAddress: address(row.owner),
        data: row.data,
        executable: row.executable,
        space: BigInt(row.data.length),
      });
    }
    syncClock(svm, clock);

    const mint = store.getMeta(MINT_META);
    const authority = store.getMeta(MINT_AUTHORITY_META);
    if (mint !== null && authority !== null) {
      return new SimChain(svm, store, vault, clock, address(mint), address(authority));
    }
    // First start: a local USDC-like mint (6 decimals) whose authority key lives in the key store.
    const authorityAddress = address(await vault.createWallet());
    const mintAccount = await vault.signer(await vault.createWallet());
    const chain = new SimChain(svm, store, vault, clock, mintAccount.address, authorityAddress);
    await chain.prepareFeePayer(authorityAddress);
    const payer = await vault.signer(authorityAddress);
    const space = BigInt(getMintSize());
    await chain.execute(payer, [
      getCreateAccountInstruction({
        payer,
        newAccount: mintAccount,
        lamports: svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mintAccount.address, decimals: USDC_DECIMALS, mintAuthority: authorityAddress }),
    ]);
    store.setMeta(MINT_META, mintAccount.address);
    store.setMeta(MINT_AUTHORITY_META, authorityAddress);
    return chain;
  }

  async prepareFeePayer(wallet: string): Promise<void> {
    const balance = this.svm.getBalance(address(wallet)) ?? 0n;
    if (balance >= ONE_SOL) return;
    this.svm.airdrop(address(wallet), lamports(10n * ONE_SOL));
    this.store.commit([this.accountRow(address(wallet))].filter((row) => row !== null), null);
  }

  async usdcBalance(wallet: string): Promise<bigint> {
    const account = this.svm.getAccount(await usdcTokenAccount(this.usdcMint, address(wallet)));
    return account.exists ? decodeToken(account).data.amount : 0n;
  }

  async hasUsdcAccount(wallet: string): Promise<boolean> {
    return this.svm.getAccount(await usdcTokenAccount(this.usdcMint, address(wallet))).exists;
  }

  async usdcBalances(wallets: string[]): Promise<Map<string, bigint>> {
    // Token-account derivations hash on WebCrypto's thread pool: start them all at once.
    const amounts = await Promise.all(wallets.map((wallet) => this.usdcBalance(wallet)));
    return new Map(wallets.map((wallet, index) => [wallet, amounts[index] ?? 0n]));
  }

  async prepareTransfer(request: TransferRequest): Promise<PreparedTransfer> {
    await this.prepareFeePayer(request.feePayer);
    const feePayer = await this.vault.signer(request.feePayer);
    const from = await this.vault.signer(request.from);
    const instructions = await usdcTransferInstructions({
      mint: this.usdcMint,
      from,
      to: address(request.to),
      amount: request.amount,
      memo: request.memo,
      reference: request.reference,
      feePayer,
      createRecipientAccount: request.createRecipientAccount,
    });
    const transaction = await this.sign(feePayer, instructions);
    return {
      txSignature: getSignatureFromTransaction(transaction),
      txWire: getBase64EncodedWireTransaction(transaction),
      // The sim chain's blockhashes never expire on their own; the height is informative only.
      lastValidBlockHeight: this.svm.getClock().slot + 150n,
    };
  }

  async submitTransfer(prepared: PreparedTransfer): Promise<void> {
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(prepared.txWire));
    this.run(transaction, prepared.txWire, prepared.txSignature);
  }

  async resend(prepared: PreparedTransfer): Promise<void> {
    // The sim chain decides at once; a resend is a submit whose failure is already recorded.
    await this.submitTransfer(prepared).catch(() => undefined);
  }

  async fateOf(sent: { txSignature: string }): Promise<TransactionFate> {
    const found = this.store.findTransaction(sent.txSignature);
    if (found === null) return { state: 'dropped' };
    return found.error === null ? { state: 'succeeded' } : { state: 'failed', error: found.error };
  }

  async findTransfer(txSignature: string): Promise<TransferFound | null> {
    const found = this.store.findTransaction(txSignature);
    if (found === null) return null;
    return decodeUsdcTransfer(found.wire, {
      succeeded: found.error === null,
      error: found.error,
      blockTime: Math.floor(found.blockTime / 1000),
      slot: found.slot,
    });
  }

  async incomingTransfers(): Promise<{ transfers: []; readUpTo: null; unreadable: [] }> {
    // Nothing outside this process can send to the embedded chain; the faucet records its own deposits.
    return { transfers: [], readUpTo: null, unreadable: [] };
  }

  /**
   * Opens USDC accounts for wallets that have none (the mint authority pays the test rent): the
   * registry's sellers hold USDC accounts on a real cluster, so they do on the sim chain too.
   */
  async openUsdcAccounts(wallets: string[]): Promise<void> {
    const missing: Address[] = [];
    for (const wallet of new Set(wallets)) if (!(await this.hasUsdcAccount(wallet))) missing.push(address(wallet));
    if (missing.length === 0) return;
    await this.prepareFeePayer(this.mintAuthority);
    const payer = await this.vault.signer(this.mintAuthority);
    for (let start = 0; start < missing.length; start += 8) {
      const instructions = await Promise.all(
        missing.slice(start, start + 8).map(async (owner) =>
          getCreateAssociatedTokenIdempotentInstruction({ payer, ata: await usdcTokenAccount(this.usdcMint, owner), owner, mint: this.usdcMint }),
        ),
      );
      await this.execute(payer, instructions);
    }
  }

  async prepareTestMint(to: string, amount: bigint): Promise<PreparedTransfer> {
    const authority = await this.vault.signer(this.mintAuthority);
    await this.prepareFeePayer(this.mintAuthority);
    const token = await usdcTokenAccount(this.usdcMint, address(to));
    const transaction = await this.sign(authority, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: authority, ata: token, owner: address(to), mint: this.usdcMint }),
      getMintToCheckedInstruction({ mint: this.usdcMint, token, mintAuthority: authority, amount, decimals: USDC_DECIMALS }),
      // A unique memo keeps two equal faucet calls from being the same transaction.
      getAddMemoInstruction({ memo: `faucet ${this.clock.now()} ${Math.random()}` }, { programAddress: MEMO_PROGRAM_ADDRESS }),
    ]);
    return {
      txSignature: getSignatureFromTransaction(transaction),
      txWire: getBase64EncodedWireTransaction(transaction),
      lastValidBlockHeight: this.svm.getClock().slot + 150n,
    };
  }

  async close(): Promise<void> {}

  /** The raw LiteSVM, for the benchmark's baseline only. */
  get runtime(): LiteSVM {
    return this.svm;
  }

  private async sign(feePayer: TransactionSigner, instructions: Instruction[]): Promise<Transaction> {
    return pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(feePayer, message),
      (message) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(message),
      (message) => appendTransactionMessageInstructions(instructions, message),
      (message) => signTransactionMessageWithSigners(message),
    );
  }

  private async execute(feePayer: TransactionSigner, instructions: Instruction[]): Promise<string> {
    const transaction = await this.sign(feePayer, instructions);
    const signature = getSignatureFromTransaction(transaction);
    this.run(transaction, getBase64EncodedWireTransaction(transaction), signature);
    return signature;
  }

  /** Executes a signed transaction and persists its effects; throws CofferError when it fails. */
  private run(transaction: Transaction, wire: string, signature: string): void {
    syncClock(this.svm, this.clock);
    const result = this.svm.sendTransaction(transaction);
    const failed = result instanceof FailedTransactionMetadata;
    const error = failed ? describeFailure(result) : null;
    const alreadyProcessed = failed && error === 'AlreadyProcessed';
    if (!alreadyProcessed) {
      const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
      const touched = message.staticAccounts.map((key) => this.accountRow(key)).filter((row) => row !== null);
      // A transaction rejected before execution (bad blockhash, bad signature) never lands on chain.
      const landed = !failed || isInstructionError((result as FailedTransactionMetadata).err());
      this.store.commit(
        touched,
        landed ? { signature, wire, slot: this.svm.getClock().slot, blockTime: this.clock.now(), error } : null,
      );
    }
    if (failed) {
      const insufficient = error !== null && /InstructionErrorCustom \{ code: 1 \}/.test(error);
      throw new CofferError(
        insufficient ? 'insufficient_funds' : 'chain_rejected',
        insufficient ? 'the paying wallet does not hold enough USDC' : `the transaction failed on chain: ${error}`,
      );
    }
  }

  private accountRow(key: Address): SimAccountRow | null {
    const account = this.svm.getAccount(key);
    if (!account.exists || account.executable) return null;
    return {
      address: key,
      lamports: account.lamports,
      owner: account.programAddress,
      data: new Uint8Array((account as EncodedAccount).data),
      executable: false,
    };
  }
}

function syncClock(svm: LiteSVM, clock: Clock): void {
  const current = svm.getClock();
  current.unixTimestamp = BigInt(Math.floor(clock.now() / 1000));
  svm.setClock(current);
}

type TransactionError = ReturnType<FailedTransactionMetadata['err']>;
type InstructionError = Extract<TransactionError, { err(): unknown }>;

/** An error raised while executing an instruction: the transaction landed (and paid its fee) but failed. */
function isInstructionError(err: TransactionError): err is InstructionError {
  return typeof err === 'object' && 'index' in err && 'err' in err && typeof err.err === 'function';
}

function describeFailure(result: FailedTransactionMetadata): string {
  const err = result.err();
  if (isInstructionError(err)) {
    const inner = err.err();
    const innerText = typeof inner === 'number' ? `InstructionErrorFieldless(${inner})` : inner.toString();
    return `InstructionError(${err.index}, ${innerText})`;
  }
  if (typeof err === 'number') return TRANSACTION_ERROR_NAMES[err] ?? `TransactionError(${err})`;
  return err.toString();
}

const TRANSACTION_ERROR_NAMES: Record<number, string> = {
  2: 'AccountNotFound',
  4: 'InsufficientFundsForFee',
  6: 'AlreadyProcessed',
  7: 'BlockhashNotFound',
  11: 'SignatureFailure',
};
