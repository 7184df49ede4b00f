import type { LiteSVM } from 'litesvm';
import {
  address,
  appendTransactionMessageInstructions,
  assertIsTransactionWithBlockhashLifetime,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  blockhash as toBlockhash,
  type Address,
  type Instruction,
  type Transaction,
  type TransactionWithBlockhashLifetime,
  type TransactionSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
} from '@solana-program/token';
import { getAddMemoInstruction } from '@solana-program/memo';
import { transferRefusal } from '../transfer-errors.js';
import { CofferError } from '../../../wire/errors.js';
import { USDC_DECIMALS } from '../../../wire/money.js';
import type {
  Chain,
  PayerSignedFate,
  PreparedTransfer,
  TransactionFate,
  TransferFound,
  ChainInLedger,
  TransferRequest,
} from '../../../core/ports/chain.js';
import type { Clock } from '../../../core/ports/keys.js';
import type { WalletSigners } from '../signers.js';
import {
  MEMO_PROGRAM_ADDRESS,
  decodeUsdcTransfer,
  tokenAmount,
  tokenOwner,
  usdcTokenAccount,
  usdcTokenAccounts,
} from '../usdc-transfer.js';
import { checkedAddress } from '../address-memo.js';
import { signedUsdcTransfer } from '../transfer-message.js';
import { SimLedger, type SimChainStore } from './ledger.js';

const ONE_SOL = 1_000_000_000n;
const MINT_META = 'sim.usdc_mint';
const MINT_AUTHORITY_META = 'sim.usdc_mint_authority';

/**
 * The embedded chain as Coffer's Chain port: Coffer's transfers on the sim ledger (LiteSVM with its
 * accounts and history in SQLite, see SimLedger), signed with the key vault's wallets, and a local
 * USDC-like mint whose authority is a key of the vault.
 */
export class SimChain implements Chain {
  readonly network = 'sim';
  readonly isSim = true;

  private constructor(
    readonly ledger: SimLedger,
    private readonly store: SimChainStore,
    private readonly vault: WalletSigners,
    private readonly clock: Clock,
    readonly usdc: Address,
    private readonly mintAuthority: Address,
  ) {}

  static async open(store: SimChainStore, vault: WalletSigners, clock: Clock): Promise<SimChain> {
    const ledger = SimLedger.open(store, clock);
    const svm = ledger.svm;
    const mint = store.getMeta(MINT_META);
    const authority = store.getMeta(MINT_AUTHORITY_META);
    if (mint !== null && authority !== null) {
      return new SimChain(ledger, store, vault, clock, address(mint), address(authority));
    }
    // First start: a local USDC-like mint (6 decimals) whose authority key lives in the key store.
    const authorityAddress = address(await vault.createWallet({ kind: 'random' }));
    const mintAccount = await vault.signer(await vault.createWallet({ kind: 'random' }));
    const chain = new SimChain(ledger, store, vault, clock, mintAccount.address, authorityAddress);
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

  ownWallets(): string[] {
    return [this.mintAuthority, this.usdc];
  }

  async prepareFeePayer(wallet: string): Promise<void> {
    if (this.ledger.lamportsOf(wallet) >= ONE_SOL) return;
    this.ledger.airdrop(wallet, 10n * ONE_SOL);
  }

  private get svm(): LiteSVM {
    return this.ledger.svm;
  }

  async usdcBalance(wallet: string): Promise<bigint> {
    const data = this.ledger.dataOf(await usdcTokenAccount(this.usdc, checkedAddress(wallet)));
    return data === null ? 0n : tokenAmount(data);
  }

  async hasUsdcAccount(wallet: string): Promise<boolean> {
    return this.ledger.dataOf(await usdcTokenAccount(this.usdc, checkedAddress(wallet))) !== null;
  }

  async hasActivity(wallet: string): Promise<boolean> {
    const account = await usdcTokenAccount(this.usdc, checkedAddress(wallet));
    return this.ledger.dataOf(account) !== null || [wallet, account].some((key) => this.ledger.signaturesFor(key, { limit: 1 }).length > 0);
  }

  async usdcBalances(wallets: string[]): Promise<Map<string, bigint>> {
    // Token-account derivations hash on WebCrypto's thread pool: start them all at once (then they are
    // remembered). The accounts are read from their persisted copy in one query, which holds what
    // LiteSVM holds (every change is written in the same step): reading a thousand of them through
    // LiteSVM's own accessor costs tens of milliseconds.
    // Wallet addresses come from the ledger, already checked: no base58 round trip per wallet.
    const accounts = await usdcTokenAccounts(this.usdc, wallets as Address[]);
    const data = this.store.accountsData(accounts);
    return new Map(
      wallets.map((wallet, index) => {
        const bytes = data.get(accounts[index]!);
        return [wallet, bytes === undefined ? 0n : tokenAmount(bytes)];
      }),
    );
  }

  async prepareTransfer(request: TransferRequest): Promise<PreparedTransfer> {
    await this.prepareFeePayer(request.feePayer);
    return signedUsdcTransfer(
      {
        ...request,
        // The ledger says at no cost whether the account is there, so the transfer asks the token
        // programs only to make one that is missing (a registry seller's first payment, an agent's
        // first allocation). Should it be closed before the transfer lands, the transfer fails and
        // moves nothing.
        createRecipientAccount: request.createRecipientAccount && !(await this.hasUsdcAccount(request.to)),
        mint: this.usdc,
        from: checkedAddress(request.from),
        to: checkedAddress(request.to),
        feePayer: checkedAddress(request.feePayer),
      },
      this.ledger.latestBlockhash(),
      (wallet) => this.vault.signBytes(wallet),
    );
  }

  async submitTransfer(prepared: PreparedTransfer): Promise<void> {
    this.run(prepared.txWire);
  }

  /** Its state is the ledger's own: a transfer executes inside the ledger's open write (see ChainInLedger). */
  readonly inLedger: ChainInLedger = { executeInCommit: (prepared) => this.land(prepared.txWire) };

  async resend(prepared: PreparedTransfer): Promise<void> {
    // The sim chain decides at once: a transaction that fails now is recorded as failed, and its
    // fate says so next time (the refusal thrown here tells the caller now).
    await this.submitTransfer(prepared);
  }

  async fateOf(sent: { txSignature: string }): Promise<TransactionFate> {
    const found = this.store.findTransaction(sent.txSignature);
    if (found === null) return { state: 'dropped' };
    return found.error === null ? { state: 'succeeded' } : { state: 'failed', error: found.error };
  }

  async fateOfPayerSigned(): Promise<PayerSignedFate> {
    // x402 names no embedded chain, so no x402 payment is ever made on it.
    throw new CofferError('unsupported_offer', 'x402 payments are made on devnet or mainnet, not on the sim chain');
  }

  async findTransfer(txSignature: string): Promise<TransferFound | null> {
    const found = this.store.findTransaction(txSignature);
    if (found === null) return null;
    const transfer = await decodeUsdcTransfer(found.wire, {
      succeeded: found.error === null,
      error: found.error,
      blockTime: Math.floor(found.blockTime / 1000),
      slot: found.slot,
    });
    if (transfer === null || transfer.to !== null) return transfer;
    // A transfer to an account that was already open names no wallet in its instructions: the ledger
    // says whose the account is, when it is that wallet's own USDC account.
    const data = this.ledger.dataOf(transfer.toTokenAccount);
    const owner = data === null ? null : tokenOwner(data);
    const ownAccount = owner !== null && (await usdcTokenAccount(address(transfer.mint), owner)) === transfer.toTokenAccount;
    return { ...transfer, to: ownAccount ? owner : null };
  }

  async incomingTransfers(): Promise<{ transfers: []; readUpTo: null; unreadable: [] }> {
    // The faucet records its own deposits. Test USDC sent to the treasury over /rpc (only ever from
    // a wallet that got it from Coffer's own) is not watched for.
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
          getCreateAssociatedTokenIdempotentInstruction({
            payer,
            ata: await usdcTokenAccount(this.usdc, owner),
            owner,
            mint: this.usdc,
          }),
        ),
      );
      await this.execute(payer, instructions);
    }
  }

  async prepareTestMint(to: string, amount: bigint): Promise<PreparedTransfer> {
    const authority = await this.vault.signer(this.mintAuthority);
    await this.prepareFeePayer(this.mintAuthority);
    const token = await usdcTokenAccount(this.usdc, address(to));
    const transaction = await this.sign(authority, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: authority, ata: token, owner: address(to), mint: this.usdc }),
      getMintToCheckedInstruction({ mint: this.usdc, token, mintAuthority: authority, amount, decimals: USDC_DECIMALS }),
      // A unique memo keeps two equal faucet calls from being the same transaction.
      getAddMemoInstruction({ memo: `faucet ${this.clock.now()} ${Math.random()}` }, { programAddress: MEMO_PROGRAM_ADDRESS }),
    ]);
    return this.prepared(transaction);
  }

  async close(): Promise<void> {}

  /** The raw LiteSVM, for the benchmark's baseline only. */
  get runtime(): LiteSVM {
    return this.svm;
  }

  private prepared(transaction: Transaction & TransactionWithBlockhashLifetime): PreparedTransfer {
    return {
      txSignature: getSignatureFromTransaction(transaction),
      txWire: getBase64EncodedWireTransaction(transaction),
      lifetimeEnd: transaction.lifetimeConstraint.lastValidBlockHeight,
    };
  }

  private async sign(feePayer: TransactionSigner, instructions: Instruction[]): Promise<Transaction & TransactionWithBlockhashLifetime> {
    const { blockhash, lastValidBlockHeight } = this.ledger.latestBlockhash();
    const signed = await pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(feePayer, message),
      (message) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(blockhash), lastValidBlockHeight }, message),
      (message) => appendTransactionMessageInstructions(instructions, message),
      (message) => signTransactionMessageWithSigners(message),
    );
    assertIsTransactionWithBlockhashLifetime(signed);
    return signed;
  }

  private async execute(feePayer: TransactionSigner, instructions: Instruction[]): Promise<string> {
    const transaction = await this.sign(feePayer, instructions);
    this.run(getBase64EncodedWireTransaction(transaction));
    return getSignatureFromTransaction(transaction);
  }

  /** Executes a signed transaction on the ledger: null when it landed, else why not. */
  private land(wire: string): CofferError | null {
    const { failure } = this.ledger.execute(wire);
    return failure === null ? null : transferRefusal(failure.err, wire, failure.description);
  }

  /** Executes a transaction Coffer itself needs (the mint's set-up); throws when it fails. */
  private run(wire: string): void {
    const refusal = this.land(wire);
    if (refusal !== null) throw refusal;
  }
}
