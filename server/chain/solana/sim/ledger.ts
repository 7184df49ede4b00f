import { LiteSVM, FailedTransactionMetadata, type TransactionMetadata } from 'litesvm';
import type { Account as NativeAccount, LiteSvm as NativeLiteSvm } from 'litesvm/dist/internal.js';
import {
  address,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports,
  type Address,
  type Transaction,
} from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder, getMintSize, getTokenSize } from '@solana-program/token';
import { addressFromBytes, addressToBytes } from '../address-memo.js';
import { instructionsOf, readWireTransaction, type WireTransaction } from '../wire-transaction.js';
import type { Clock } from '../../../core/ports/keys.js';
import { rpcTransactionError, type RpcTransactionError } from './transaction-errors.js';
import { LAMPORTS_PER_SIGNATURE, uiTokenAmount, type RpcTokenBalance } from '../rpc-shapes.js';
import { tokenAmount } from '../usdc-transfer.js';
import { SimBlocks } from './blocks.js';

/** One persisted account of the embedded chain. */
export interface SimAccountRow {
  address: string;
  lamports: bigint;
  owner: string;
  data: Uint8Array;
  executable: boolean;
}

/** What a node records of a landed transaction besides its bytes. */
export interface SimTransactionMeta {
  err: RpcTransactionError | null;
  fee: number;
  logMessages: string[];
  computeUnitsConsumed: number;
  /** The message's static account keys, which the token balances index into. */
  accountKeys: string[];
  preTokenBalances: RpcTokenBalance[];
  postTokenBalances: RpcTokenBalance[];
}

/** A block of the embedded chain: one every slot, holding the transactions that landed in it. */
export interface SimBlock {
  slot: bigint;
  height: bigint;
  blockhash: string;
  previousBlockhash: string;
  /** Milliseconds. */
  blockTime: number;
  transactions: SimTransactionRow[];
}

export interface SimTransactionRow {
  signature: string;
  wire: string;
  slot: bigint;
  /** Milliseconds. */
  blockTime: number;
  /** LiteSVM's description of the failure, null when the transaction succeeded. */
  error: string | null;
  meta: SimTransactionMeta;
}

/** What the sim chain needs from storage: its accounts and its transaction log, written together. */
export interface SimChainStore {
  loadAccounts(): SimAccountRow[];
  /**
   * Writes the accounts a transaction touched and the transaction itself in one SQLite transaction
   * (inside the caller's, when one is open): listed under `listedUnder` (getSignaturesForAddress).
   */
  commit(accounts: SimAccountRow[], transaction: SimTransactionRow | null, extra?: { listedUnder?: readonly string[] }): void;
  /** Runs `write` as one SQLite write transaction (commits inside it join it). */
  transaction<T>(write: () => T): T;
  findTransaction(signature: string): SimTransactionRow | null;
  /** Whether a transaction with this signature is in the log (landed, succeeded or failed). */
  hasTransaction(signature: string): boolean;
  /** The persisted data of the accounts that exist among these, by address. */
  accountsData(addresses: string[]): Map<string, Uint8Array>;
  /** The addresses and data of the accounts a program owns (getProgramAccounts, getTokenAccountsByOwner). */
  accountsOwnedBy(program: string): { address: string; data: Uint8Array }[];
  /**
   * Transactions that touched an address, newest first: before `before` (exclusive), down to `until`
   * (exclusive), at most `limit`.
   */
  signaturesFor(address: string, options: { before?: string; until?: string; limit: number }): SimTransactionRow[];
  /** The transactions that landed in a slot, in the order they landed. */
  transactionsInSlot(slot: bigint): SimTransactionRow[];
  /** The highest slot a transaction landed in; null when none has. */
  lastSlot(): bigint | null;
  getMeta(key: string): string | null;
  setMeta(key: string, value: string): void;
}

const GENESIS_META = 'sim.genesis_hash';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const BLOCKHASH_NOT_FOUND: LedgerFailure = { err: 'BlockhashNotFound', description: 'BlockhashNotFound', logs: [], landed: false };
const ALREADY_PROCESSED: LedgerFailure = { err: 'AlreadyProcessed', description: 'AlreadyProcessed', logs: [], landed: false };

/** Why a transaction was not executed or failed: the RPC's error shape, and LiteSVM's words. */
export interface LedgerFailure {
  err: RpcTransactionError;
  description: string;
  logs: string[];
  /** True when it landed (it paid its fee and is recorded) although it failed. */
  landed: boolean;
}

export type ExecuteResult = { signature: string; failure: null } | { signature: string; failure: LedgerFailure };

/**
 * The embedded chain's state and history: LiteSVM 1.x running the real SPL Token, Associated Token and
 * Memo programs, with what a node keeps beside it (slots, block height, blockhash lifetimes, a log of
 * landed transactions with their metadata, an index of signatures by address). Every landed
 * transaction and every account it touched is written through the store in one commit, so the chain
 * survives restarts; a transaction executed but not yet persisted when the process died is gone with
 * the in-memory state, as if it never landed.
 *
 * Blocks and blockhashes follow the clock (SimBlocks): a blockhash expires 150 blocks (a minute) after
 * it was issued. LiteSVM's own blockhash check is off: it knows only its latest blockhash and forgets
 * across restarts, so the ledger decides. Slots follow the clock too: the transactions landing within
 * one slot are its block (`block`).
 */
export class SimLedger {
  private readonly mintDecimals = new Map<string, number>();
  /**
   * LiteSVM's native instance behind its JavaScript wrapper. The wrapper converts every address and
   * account through base58 and re-encodes a transaction it is given; the pay path hands the native
   * side the bytes it already has instead. Everything else goes through the wrapper (`svm`).
   */
  private readonly native: NativeLiteSvm;

  private constructor(
    readonly svm: LiteSVM,
    private readonly store: SimChainStore,
    private readonly clock: Clock,
    readonly genesisHash: string,
    private readonly blocks: SimBlocks,
  ) {
    this.native = nativeOf(svm);
    svm.withBlockhashCheck(false);
  }

  /**
   * Loads the persisted accounts into a fresh LiteSVM. `genesisHash` names the cluster this chain
   * presents itself as (a random one of its own, kept in the store, unless given).
   */
  static open(store: SimChainStore, clock: Clock, options: { genesisHash?: string } = {}): SimLedger {
    const svm = new LiteSVM();
    for (const row of store.loadAccounts()) {
      if (row.lamports === 0n) continue; // closed
      svm.setAccount({
        address: address(row.address),
        lamports: lamports(row.lamports),
        programAddress: address(row.owner),
        data: row.data,
        executable: row.executable,
        space: BigInt(row.data.length),
      });
    }
    let genesisHash = options.genesisHash ?? store.getMeta(GENESIS_META);
    if (genesisHash === null) {
      genesisHash = svm.latestBlockhash();
      store.setMeta(GENESIS_META, genesisHash);
    }
    const ledger = new SimLedger(svm, store, clock, genesisHash, new SimBlocks(store, clock, store.lastSlot()));
    ledger.syncClock();
    return ledger;
  }

  /** The first slot whose block the chain kept whole (getFirstAvailableBlock). */
  get firstBlockSlot(): bigint {
    return this.blocks.firstSlot;
  }

  /** The slot of the last block made (see SimBlocks: slots follow the clock; the transactions landing now join the next). */
  get slot(): bigint {
    return this.blocks.slot;
  }

  get blockHeight(): bigint {
    return this.blocks.height;
  }

  /** The blockhash a new transaction should use, and the last block height it can land at. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    return this.blocks.latest();
  }

  /** Whether a transaction signed with this blockhash can still land. */
  isBlockhashUsable(blockhash: string): boolean {
    return this.blocks.isUsable(blockhash);
  }

  /**
   * Moves block height forward at once, as `count` blocks of a cluster's time would: the next
   * transaction gets a new blockhash, and those `count` blocks older expire when past their height.
   */
  advanceBlocks(count: number): void {
    this.blocks.advance(count);
  }

  account(key: string) {
    return this.svm.getAccount(address(key));
  }

  /** The accounts a program owns, with their data, as persisted (what LiteSVM holds: every change is written in the same step). */
  accountsOwnedBy(program: string): { address: string; data: Uint8Array }[] {
    return this.store.accountsOwnedBy(program);
  }

  /** Gives a wallet SOL for fees (test SOL: the embedded chain's own) and persists it. */
  airdrop(wallet: string, amount: bigint): void {
    this.svm.airdrop(address(wallet), lamports(amount));
    this.persistAccounts([address(wallet)]);
  }

  /** Writes accounts changed outside a transaction (an airdrop, a test setting an account). */
  persistAccounts(keys: Address[]): void {
    this.store.commit(
      keys.map((key) => persistedRow(key, this.native.getAccount(addressToBytes(key)))).filter((row) => row !== null),
      null,
    );
  }

  decode(wire: string): Transaction {
    return getTransactionDecoder().decode(getBase64Encoder().encode(wire)) as Transaction;
  }

  /** An account's lamports (0 when it does not exist). */
  lamportsOf(key: string): bigint {
    return this.native.getBalance(addressToBytes(key)) ?? 0n;
  }

  /** An account's data, or null when it does not exist. */
  dataOf(key: string): Uint8Array | null {
    return this.native.getAccount(addressToBytes(key))?.data() ?? null;
  }

  /**
   * Executes a signed transaction given as its base64 wire text. It lands (and is recorded with every
   * account it wrote) when it succeeds or fails inside an instruction, as on a cluster; a transaction
   * refused before execution (unknown or expired blockhash, bad signature, a fee it cannot pay)
   * leaves no trace. Throws when the text is not a transaction.
   */
  execute(wire: string): ExecuteResult {
    return this.run(readWireTransaction(new Uint8Array(Buffer.from(wire, 'base64'))), wire);
  }

  private run(transaction: WireTransaction, wire: string): ExecuteResult {
    const { signature, accountKeys, accountKeyBytes, writable } = transaction;
    if (!this.blocks.isUsable(transaction.blockhash)) return { signature, failure: BLOCKHASH_NOT_FOUND };
    // A signature lands once, as on Solana. LiteSVM's own memory of signatures is recent and in
    // memory only, so a landed transaction's bytes (anyone can read them over /rpc) would move money
    // again after a restart or enough newer transactions: the persisted log decides, on every path.
    if (this.store.hasTransaction(signature)) return { signature, failure: ALREADY_PROCESSED };
    const slot = this.syncClock();
    // Only writable accounts can change: they alone are read around the transaction and persisted.
    const read = () => writable.map((index) => this.native.getAccount(accountKeyBytes[index]!));
    const before = read();
    const result = this.send(transaction);
    const failed = result instanceof FailedTransactionMetadata;
    const err = failed ? rpcTransactionError(result.err()) : null;
    const landed = !failed || (err !== null && typeof err === 'object' && 'InstructionError' in err);
    const meta = failed ? result.meta() : result;
    const logs = meta.logs();
    if (landed) {
      const after = read();
      const touched = after.map((account, i) => persistedRow(accountKeys[writable[i]!]!, account)).filter((row) => row !== null);
      this.store.commit(
        touched,
        {
          signature,
          wire,
          slot,
          // A block's time, as on a cluster: every transaction in a slot has the time the slot began.
          blockTime: this.blocks.startOf(slot),
          error: failed ? describeFailure(result) : null,
          meta: {
            err,
            fee: LAMPORTS_PER_SIGNATURE * transaction.signatureCount,
            logMessages: logs,
            computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
            accountKeys,
            preTokenBalances: this.tokenBalances(writable, before),
            postTokenBalances: this.tokenBalances(writable, after),
          },
        },
        { listedUnder: listedUnder(transaction) },
      );
    }
    if (!failed) return { signature, failure: null };
    return { signature, failure: { err: err ?? 'UnknownError', description: describeFailure(result), logs, landed } };
  }

  private send(transaction: WireTransaction): TransactionMetadata | FailedTransactionMetadata {
    if (transaction.version === 'legacy') return this.native.sendLegacyTransaction(transaction.bytes);
    return this.native.sendVersionedTransaction(transaction.bytes);
  }

  /**
   * Runs a transaction without landing it. `sigVerify: false` lets a partially signed transaction be
   * simulated (an x402 payment before its fee payer signs); `replaceRecentBlockhash` runs it as if it
   * used the latest blockhash.
   */
  simulate(
    transaction: Transaction,
    options: { sigVerify: boolean; replaceRecentBlockhash: boolean },
  ): {
    err: RpcTransactionError | null;
    logs: string[];
    unitsConsumed: number;
    replacementBlockhash: { blockhash: string; lastValidBlockHeight: bigint } | null;
  } {
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (!options.replaceRecentBlockhash) {
      const expired = this.blockhashExpired(message.lifetimeToken);
      if (expired !== null) return { err: expired.err, logs: [], unitsConsumed: 0, replacementBlockhash: null };
    }
    this.syncClock();
    this.svm.withSigverify(options.sigVerify);
    try {
      const result = this.svm.simulateTransaction(transaction);
      const meta = result instanceof FailedTransactionMetadata ? result.meta() : result.meta();
      return {
        err: result instanceof FailedTransactionMetadata ? rpcTransactionError(result.err()) : null,
        logs: meta.logs(),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
        replacementBlockhash: options.replaceRecentBlockhash ? this.latestBlockhash() : null,
      };
    } finally {
      this.svm.withSigverify(true);
    }
  }

  findTransaction(signature: string): SimTransactionRow | null {
    return this.store.findTransaction(signature);
  }

  signaturesFor(key: string, options: { before?: string; until?: string; limit: number }): SimTransactionRow[] {
    return this.store.signaturesFor(key, options);
  }

  /**
   * The block made in a slot, as a node gives it once the slot is over: its height, blockhash, its
   * parent's, its time and its transactions in order. `not_yet` for the slot now and later ones,
   * `not_kept` for one before the chain kept its blocks whole (see SimBlocks).
   */
  block(slot: bigint): SimBlock | 'not_yet' | 'not_kept' {
    const made = this.blocks.block(slot);
    if (typeof made === 'string') return made;
    return { slot, ...made, transactions: this.store.transactionsInSlot(slot) };
  }

  private blockhashExpired(blockhash: string): LedgerFailure | null {
    return this.blocks.isUsable(blockhash) ? null : BLOCKHASH_NOT_FOUND;
  }

  /** LiteSVM's Clock sysvar (what programs read) at the chain's own time and the slot a transaction lands in now; that slot. */
  private syncClock(): bigint {
    const current = this.svm.getClock();
    current.unixTimestamp = BigInt(Math.floor(this.clock.now() / 1000));
    current.slot = this.blocks.landingSlot;
    this.svm.setClock(current);
    return current.slot;
  }

  /** The token balances among a transaction's (writable) accounts, as a node records them before and after it. */
  private tokenBalances(indices: number[], accounts: (NativeAccount | null)[]): RpcTokenBalance[] {
    const balances: RpcTokenBalance[] = [];
    accounts.forEach((account, i) => {
      if (account === null || addressFromBytes(account.owner()) !== TOKEN_PROGRAM_ADDRESS) return;
      const data = account.data();
      if (data.length !== getTokenSize()) return;
      // The SPL Token account layout: mint, owner, amount (u64 little-endian).
      const mint = addressFromBytes(data.subarray(0, 32));
      balances.push({
        accountIndex: indices[i]!,
        mint,
        owner: addressFromBytes(data.subarray(32, 64)),
        programId: TOKEN_PROGRAM_ADDRESS,
        uiTokenAmount: uiTokenAmount(tokenAmount(data), this.decimalsOf(mint)),
      });
    });
    return balances;
  }

  /** A mint's decimals (6 for anything unreadable, as USDC); a mint's decimals never change. */
  decimalsOf(mint: string): number {
    let decimals = this.mintDecimals.get(mint);
    if (decimals === undefined) {
      const account = this.svm.getAccount(address(mint));
      if (!account.exists || account.data.length !== getMintSize()) return 6;
      decimals = getMintDecoder().decode(account.data).decimals;
      this.mintDecimals.set(mint, decimals);
    }
    return decimals;
  }
}

/**
 * An account as persisted. Programs (executable) are LiteSVM's own and not kept; a closed account is
 * kept as an empty one (no lamports), which a restart leaves out, so it does not come back.
 */
function persistedRow(key: string, account: NativeAccount | null): SimAccountRow | null {
  if (account === null || account.lamports() === 0n)
    return { address: key, lamports: 0n, owner: SYSTEM_PROGRAM, data: new Uint8Array(), executable: false };
  if (account.executable()) return null;
  return { address: key, lamports: account.lamports(), owner: addressFromBytes(account.owner()), data: account.data(), executable: false };
}

/**
 * The addresses a transaction is listed under, as a cluster lists them: every account it names, the
 * read-only ones too (an agent's wallet is read-only in the allocation that opens its USDC account),
 * but not the programs its instructions call (every payment calls the token program: an index entry
 * per payment that no one asks for). Transactions an earlier Coffer stored stay listed under the
 * accounts they write or sign with only.
 */
function listedUnder(transaction: WireTransaction): string[] {
  let programs: Set<number>;
  try {
    programs = new Set(instructionsOf(transaction).map((instruction) => instruction.program));
  } catch {
    programs = new Set(); // instructions that cannot be read: listed under every key it names
  }
  return transaction.accountKeys.filter((_, index) => !programs.has(index));
}

/** The native LiteSVM behind the wrapper; fails loudly at start if a new release moved it. */
function nativeOf(svm: LiteSVM): NativeLiteSvm {
  const native = (svm as unknown as { inner?: NativeLiteSvm }).inner;
  if (typeof native?.sendVersionedTransaction !== 'function' || typeof native.getAccount !== 'function') {
    throw new Error('this litesvm release keeps its native instance elsewhere: update SimLedger.nativeOf');
  }
  return native;
}

/** LiteSVM's words for a failure, as recorded in the transaction log since the first schema. */
function describeFailure(result: FailedTransactionMetadata): string {
  const err = result.err();
  if (typeof err === 'number') return TRANSACTION_ERROR_NAMES[err] ?? `TransactionError(${err})`;
  if ('index' in err && 'err' in err && typeof err.err === 'function') {
    const inner = err.err();
    const innerText = typeof inner === 'number' ? `InstructionErrorFieldless(${inner})` : inner.toString();
    return `InstructionError(${err.index}, ${innerText})`;
  }
  return err.toString();
}

const TRANSACTION_ERROR_NAMES: Record<number, string> = {
  2: 'AccountNotFound',
  4: 'InsufficientFundsForFee',
  6: 'AlreadyProcessed',
  7: 'BlockhashNotFound',
  11: 'SignatureFailure',
};
