import {
  address,
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  isSignature,
  isSolanaError,
  blockhash as toBlockhash,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  signature as toSignature,
  type Address,
  type Base64EncodedWireTransaction,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit';
import { transferRefusal } from '../transfer-errors.js';
import { CofferError, isCofferError } from '../../../wire/errors.js';
import type {
  Chain,
  IncomingTransfer,
  PayerSignedFate,
  PayerSignedTransfer,
  PreparedTransfer,
  ReferencedTransfer,
  ReferenceSearch,
  TransactionFate,
  TransferFound,
  TransferRequest,
} from '../../../core/ports/chain.js';
import type { WalletSigners } from '../signers.js';
import type { RpcNetwork } from '../networks.js';
import { creditOf } from '../token-balance-changes.js';
import { carriesMemos, decodeUsdcTransfer, tokenAmount, usdcTokenAccount } from '../usdc-transfer.js';
import { signedUsdcTransfer } from '../transfer-message.js';
import { RecentBlockhash, type Lifetime } from './recent-blockhash.js';
import { clusterRpc, RpcAnswered } from './cluster-rpc.js';

const CONFIRM_POLL_MS = 500;
/** Transactions the deposit watcher reads a round (every 15 s): 200 is within public RPC limits. */
const DEPOSIT_READS_PER_ROUND = 200;
/** A listed transaction the RPC still cannot return this long after its block is passed over. */
const UNREADABLE_AFTER_MS = 10 * 60 * 1000;
const CONFIRM_TIMEOUT_MS = 90_000;
/** How far back (pages of 1,000 signatures) and how many transactions a round reads for an x402 payment. */
const PAYER_SIGNED_PAGES = 20;
const PAYER_SIGNED_READS = 1_000;
/** How far back a payment made before a restore is looked for: pages of signatures (cheap), each read only where its memos name it. */
const REFERENCE_PAGES = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Anything thrown by the RPC transport that is not an answer from the cluster. */
function unavailable(error: unknown): CofferError {
  if (isCofferError(error)) return error;
  const what = error instanceof RpcAnswered ? 'answered' : 'could not be reached:';
  return new CofferError('chain_unavailable', `the Solana RPC ${what} ${(error as Error).message}`, { cause: error });
}

async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw unavailable(error);
  }
}

/** The blockhash a wire transaction (base64) was signed with. */
function blockhashOf(wire: string) {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire));
  return toBlockhash(getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).lifetimeToken);
}

/** Whether a wire transaction (base64) carries this signature (base58) among its signatures. */
function hasSignature(wire: string, signature: string): boolean {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire));
  return Object.values(transaction.signatures).some((bytes) => bytes !== null && getBase58Decoder().decode(bytes) === signature);
}

const jsonOf = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/** The genesis hash an RPC URL answers (what cluster it serves), or null when it does not answer in time. */
export async function readGenesisHash(rpcUrl: string, timeoutMs = 5_000): Promise<string | null> {
  try {
    return await clusterRpc(rpcUrl)
      .getGenesisHash()
      .send({ abortSignal: AbortSignal.timeout(timeoutMs) });
  } catch {
    return null;
  }
}

/**
 * Any Solana JSON-RPC endpoint (devnet, mainnet or another cluster) with that network's real USDC
 * mint. Confirms by polling signature status; a transaction whose blockhash expired unseen is dropped.
 * Without a key vault it is read-only (a paid API verifying receipts).
 */
export class RpcChain implements Chain {
  readonly isSim = false;
  readonly network: string;
  readonly usdc: string;
  private readonly rpc: Rpc<SolanaRpcApi>;
  private readonly recentBlockhash = new RecentBlockhash(async () => {
    const { value } = await call(() => this.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send());
    return value;
  });

  constructor(
    config: RpcNetwork,
    private readonly vault: WalletSigners | null,
  ) {
    this.network = config.name;
    this.usdc = config.usdcMint;
    this.rpc = clusterRpc(config.rpcUrl);
  }

  async prepareFeePayer(): Promise<void> {
    // Real SOL must be sent to the treasury by its owner; nothing to do here.
  }

  async usdcBalance(wallet: string): Promise<bigint> {
    return (await this.usdcBalances([wallet])).get(wallet) ?? 0n;
  }

  async hasUsdcAccount(wallet: string): Promise<boolean> {
    const account = await usdcTokenAccount(address(this.usdc), address(wallet));
    const { value } = await call(() => this.rpc.getAccountInfo(account, { encoding: 'base64', commitment: 'confirmed' }).send());
    return value !== null;
  }

  async hasActivity(wallet: string): Promise<boolean> {
    const account = await usdcTokenAccount(address(this.usdc), address(wallet));
    const listed = (key: Address) => call(() => this.rpc.getSignaturesForAddress(key, { limit: 1, commitment: 'confirmed' }).send());
    const [accountInfo, walletHistory, accountHistory] = await Promise.all([
      call(() => this.rpc.getAccountInfo(account, { encoding: 'base64', commitment: 'confirmed' }).send()),
      listed(address(wallet)),
      listed(account),
    ]);
    return accountInfo.value !== null || walletHistory.length > 0 || accountHistory.length > 0;
  }

  async usdcBalances(wallets: string[]): Promise<Map<string, bigint>> {
    const balances = new Map<string, bigint>();
    for (let start = 0; start < wallets.length; start += 100) {
      const chunk = wallets.slice(start, start + 100);
      const accounts = await Promise.all(chunk.map((wallet) => usdcTokenAccount(address(this.usdc), address(wallet))));
      const { value } = await call(() => this.rpc.getMultipleAccounts(accounts, { encoding: 'base64', commitment: 'confirmed' }).send());
      chunk.forEach((wallet, index) => {
        const account = value[index];
        balances.set(wallet, account ? tokenAmount(new Uint8Array(getBase64Encoder().encode(account.data[0]))) : 0n);
      });
    }
    return balances;
  }

  /**
   * The cluster's latest blockhash with the last block height it can land at, read at most once a
   * slot (recent-blockhash.ts): a block height read here that leaves it too few blocks, or a
   * transaction the cluster refused, has the next one read again.
   */
  latestBlockhash(): Promise<Lifetime> {
    return this.recentBlockhash.latest();
  }

  async prepareTransfer(request: TransferRequest): Promise<PreparedTransfer> {
    if (this.vault === null) throw new Error('this RPC chain is read-only: it holds no keys');
    const vault = this.vault;
    const blockhash = await this.latestBlockhash();
    return signedUsdcTransfer(
      {
        ...request,
        mint: address(this.usdc),
        from: address(request.from),
        to: address(request.to),
        feePayer: address(request.feePayer),
      },
      blockhash,
      (wallet) => vault.signBytes(wallet),
    );
  }

  /** A cluster is no part of the ledger's commits: the row is committed before anything is sent. */
  readonly inLedger = null;

  async submitTransfer(prepared: PreparedTransfer): Promise<void> {
    try {
      await this.rpc
        .sendTransaction(prepared.txWire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' })
        .send();
    } catch (error) {
      this.recentBlockhash.forget();
      // A preflight failure is the cluster's answer (the transaction never landed); anything else is transport.
      if (isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) {
        const cause = error.cause;
        const err = isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)
          ? { InstructionError: [cause.context.index, { Custom: cause.context.code }] }
          : 'PreflightFailure';
        throw transferRefusal(err, prepared.txWire, (cause as Error | undefined)?.message ?? error.message);
      }
      throw unavailable(error);
    }
    const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const fate = await this.fateOf(prepared);
      if (fate.state === 'succeeded') return;
      if (fate.state === 'failed') throw new CofferError('chain_rejected', `the transaction failed on chain: ${fate.error}`);
      if (fate.state === 'dropped') {
        throw new CofferError(
          'transaction_expired',
          'the transaction expired before it landed: nothing moved; ask again (with the same Idempotency-Key) to try again',
        );
      }
      await sleep(CONFIRM_POLL_MS);
    }
    throw new CofferError('chain_unavailable', 'the transaction was sent but not confirmed in time; it will be checked again');
  }

  async resend(prepared: PreparedTransfer): Promise<void> {
    await call(() =>
      this.rpc.sendTransaction(prepared.txWire as Base64EncodedWireTransaction, { encoding: 'base64', skipPreflight: true }).send(),
    );
  }

  async fateOf(sent: { txSignature: string; lifetimeEnd: bigint | null }): Promise<TransactionFate> {
    const seen = await this.statusOf(sent.txSignature);
    if (seen !== null) return seen;
    if (sent.lifetimeEnd === null) return { state: 'unknown' };
    const height = await call(() => this.rpc.getBlockHeight({ commitment: 'confirmed' }).send());
    this.recentBlockhash.heightSeen(height);
    if (height <= sent.lifetimeEnd) return { state: 'unknown' };
    // Dropped only if unseen after that height: it may have landed, in one of its last blocks, between
    // the first status read and the height read (a retry of a payment said dropped is a first try).
    return (await this.statusOf(sent.txSignature)) ?? { state: 'dropped' };
  }

  /** What the cluster says of a transaction it has seen: landed, failed, or seen but not confirmed yet. */
  private async statusOf(txSignature: string): Promise<TransactionFate | null> {
    const { value } = await call(() =>
      this.rpc.getSignatureStatuses([toSignature(txSignature)], { searchTransactionHistory: true }).send(),
    );
    const status = value[0];
    if (!status) return null;
    if (status.err) return { state: 'failed', error: jsonOf(status.err) };
    if (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized') return { state: 'succeeded' };
    return { state: 'unknown' };
  }

  async fateOfPayerSigned(sent: PayerSignedTransfer): Promise<PayerSignedFate> {
    const check = async (candidate: string): Promise<PayerSignedFate | null> => {
      const found = await call(() =>
        this.rpc
          .getTransaction(toSignature(candidate), { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
          .send(),
      );
      if (found === null || !hasSignature(found.transaction[0], sent.payerSignature)) return null;
      return found.meta?.err
        ? { state: 'failed', landedAs: candidate, error: jsonOf(found.meta.err) }
        : { state: 'succeeded', landedAs: candidate };
    };
    // A seller's report is only a hint: it counts when that transaction carries the payer's signature.
    if (sent.hint !== null && isSignature(sent.hint)) {
      const hinted = await check(sent.hint);
      if (hinted !== null) return hinted;
    }
    // Height and blockhash first: once both say the transaction can no longer land, whatever the
    // listing below does not hold never will.
    const height = await call(() => this.rpc.getBlockHeight({ commitment: 'confirmed' }).send());
    this.recentBlockhash.heightSeen(height);
    const expired =
      height > sent.lifetimeEnd &&
      !(await call(() => this.rpc.isBlockhashValid(blockhashOf(sent.txWire), { commitment: 'confirmed' }).send())).value;
    // Every transaction of the payer's USDC account since the payment was made (clocks differ between
    // this machine and the cluster: a little before), paged back; a flood of others cannot push the
    // payment out of sight. What cannot be read in one round keeps the payment pending.
    const account = await usdcTokenAccount(address(this.usdc), address(sent.payer));
    const from = BigInt(Math.floor((sent.since - 120_000) / 1000));
    let checked = 0;
    for await (const listed of this.signaturePages(account, PAYER_SIGNED_PAGES)) {
      if (listed.length === 0) return expired ? { state: 'dropped' } : { state: 'unknown' };
      // Once it can no longer land, it is in no block past its last valid one: a busy payer's newer
      // transactions are passed over by their blocks' height, not read one by one (they would use up
      // the round's reads, and the payment would stay pending for ever).
      const first = expired ? await this.firstAtOrBelow(listed, sent.lifetimeEnd) : 0;
      for (const entry of listed.slice(first)) {
        if (entry.blockTime !== null && entry.blockTime < from) return expired ? { state: 'dropped' } : { state: 'unknown' };
        if (entry.signature === sent.hint) continue;
        if (++checked > PAYER_SIGNED_READS) return { state: 'unknown' };
        const found = await check(entry.signature);
        if (found !== null) return found;
      }
    }
    return { state: 'unknown' };
  }

  async sentWithReference(sent: ReferencedTransfer): Promise<ReferenceSearch> {
    const usdc = address(this.usdc);
    const account = await usdcTokenAccount(usdc, address(sent.from));
    const recipientAccount = await usdcTokenAccount(usdc, address(sent.to));
    // Clocks differ between the machine that held it and the cluster: a little before.
    const from = BigInt(Math.floor((sent.since - 120_000) / 1000));
    let read = 0;
    for await (const listed of this.signaturePages(account, REFERENCE_PAGES)) {
      if (listed.length === 0) return { state: 'none' };
      for (const entry of listed) {
        if (entry.blockTime !== null && entry.blockTime < from) return { state: 'none' };
        // A transaction that failed moved nothing; one whose memos (listed as "[len] text; …") do not
        // name the reference is another: neither is read.
        if (entry.err !== null || (entry.memo !== null && !entry.memo.includes(sent.reference))) continue;
        if (++read > PAYER_SIGNED_READS) return { state: 'unknown' };
        const found = await call(() =>
          this.rpc
            .getTransaction(entry.signature, { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
            .send(),
        );
        if (found === null) return { state: 'unknown' };
        if (found.meta?.err) continue;
        const wire = found.transaction[0];
        const transfer = await decodeUsdcTransfer(wire, { succeeded: true, error: null, blockTime: null, slot: null });
        // Security: the payment's own transfer, not a memo anyone can write: from its wallet (only
        // Coffer holds its key), to its recipient, of its amount of this USDC, with its memos.
        const paid =
          transfer !== null &&
          transfer.from === sent.from &&
          transfer.toTokenAccount === recipientAccount &&
          transfer.mint === this.usdc &&
          transfer.amount === sent.amount &&
          carriesMemos(wire, sent.memo, sent.reference);
        if (paid)
          return { state: 'found', txSignature: entry.signature, at: found.blockTime === null ? null : Number(found.blockTime) * 1000 };
      }
    }
    return { state: 'unknown' };
  }

  /**
   * An account's signatures, newest first, in pages of up to 1,000, for at most `pages` pages. The
   * last page yielded is empty where the whole history was read: only an empty page says so, since a
   * provider that caps its pages (or a node behind) answers fewer than asked with more before them (an
   * x402 payment that landed was failed `dropped` so, and a payment made before a restore paid again).
   */
  private async *signaturePages(account: Address, pages: number) {
    let before: string | undefined;
    for (let page = 0; page < pages; page += 1) {
      const listed = await call(() =>
        this.rpc
          .getSignaturesForAddress(account, {
            limit: 1_000,
            commitment: 'confirmed',
            ...(before === undefined ? {} : { before: toSignature(before) }),
          })
          .send(),
      );
      yield listed;
      if (listed.length === 0) return;
      before = listed[listed.length - 1]?.signature;
    }
  }

  /**
   * The index of the first of `listed` (newest first) whose block is at or below `height`: those
   * before it are in later blocks. A binary search on the blocks' heights (one small read a block:
   * no transactions, no rewards). It passes over an entry only past one whose block height it read
   * above `height`: heights only grow with slots, whatever a read that answers nothing says.
   */
  private async firstAtOrBelow(listed: readonly { slot: bigint }[], height: bigint): Promise<number> {
    let low = 0;
    let high = listed.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const block = await call(() =>
        this.rpc
          .getBlock(listed[mid]!.slot, {
            commitment: 'confirmed',
            transactionDetails: 'none',
            rewards: false,
            maxSupportedTransactionVersion: 0,
          })
          .send(),
      );
      if (block !== null && block.blockHeight !== null && block.blockHeight > height) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /**
   * Whether the cluster still takes the blockhash a wire transaction (base64) was signed with: while
   * it does, a transaction not landed yet still may. False for one that cannot be read.
   */
  async blockhashUsable(txWire: string): Promise<boolean> {
    let blockhash;
    try {
      blockhash = blockhashOf(txWire);
    } catch {
      return false;
    }
    return (await call(() => this.rpc.isBlockhashValid(blockhash, { commitment: 'confirmed' }).send())).value;
  }

  async findTransfer(txSignature: string): Promise<TransferFound | null> {
    const found = await call(() =>
      this.rpc
        .getTransaction(toSignature(txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
        .send(),
    );
    if (!found) return null;
    return decodeUsdcTransfer(found.transaction[0], {
      succeeded: found.meta?.err === null,
      error: found.meta?.err ? jsonOf(found.meta.err) : null,
      blockTime: found.blockTime === null ? null : Number(found.blockTime),
      slot: found.slot,
    });
  }

  async incomingTransfers(
    wallet: string,
    afterSignature: string | null,
  ): Promise<{ transfers: IncomingTransfer[]; readUpTo: string | null; unreadable: string[] }> {
    const account = await usdcTokenAccount(address(this.usdc), address(wallet));
    // Every signature since the last one read, paged back to it (listing is cheap: 1,000 a call).
    const signatures: { signature: string; err: unknown; blockTime: bigint | null }[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await call(() =>
        this.rpc
          .getSignaturesForAddress(account, {
            limit: 1_000,
            commitment: 'confirmed',
            ...(afterSignature === null ? {} : { until: toSignature(afterSignature) }),
            ...(before === undefined ? {} : { before: toSignature(before) }),
          })
          .send(),
      );
      signatures.push(...page);
      if (page.length < 1_000) break;
      before = page[page.length - 1]?.signature;
    }
    if (signatures.length === 0) return { transfers: [], readUpTo: afterSignature, unreadable: [] };
    // The listing must join the cursor: the signature just before its oldest is the cursor (or, on a
    // first read, there is none). A lagging node or a provider that caps its answers can end a
    // listing early; moving on from such a listing would skip what it left out, for good.
    const oldestListed = signatures[signatures.length - 1]!.signature;
    const beyond = await call(() =>
      this.rpc.getSignaturesForAddress(account, { limit: 1, commitment: 'confirmed', before: toSignature(oldestListed) }).send(),
    );
    if (afterSignature === null ? beyond.length > 0 : beyond[0]?.signature !== afterSignature) {
      throw new CofferError(
        'chain_unavailable',
        "the RPC's transaction history of the treasury did not reach back to the last one read; trying again next round",
      );
    }

    // Then the oldest first, a bounded number a round, each moving the cursor only once it is read:
    // a flood of dust or a rate-limited RPC slows the watcher down but never stalls it, and a
    // transaction the RPC cannot return yet (nodes lag each other) is read next round, not skipped.
    // One it still cannot return long after its block (dropped with a fork, or pruned), or returns
    // without its metadata, is passed over and reported, so it cannot stop the watcher for good.
    const transfers: IncomingTransfer[] = [];
    const unreadable: string[] = [];
    let readUpTo = afterSignature;
    const now = Date.now();
    for (const entry of signatures.reverse().slice(0, DEPOSIT_READS_PER_ROUND)) {
      if (!entry.err) {
        let credit;
        try {
          credit = await this.usdcCredit(entry.signature, account);
        } catch (error) {
          if (readUpTo === afterSignature) throw error;
          break;
        }
        const blockTime = entry.blockTime === null ? null : Number(entry.blockTime) * 1000;
        if (credit === 'not_yet' && (blockTime === null || now - blockTime < UNREADABLE_AFTER_MS)) break;
        if (credit === 'not_yet' || credit === 'unreadable') {
          unreadable.push(entry.signature);
        } else if (credit !== null && credit.amount > 0n && credit.from !== wallet) {
          // Only what the treasury's account gained, from someone else: its own allocations only lose.
          transfers.push({
            txSignature: entry.signature,
            transferIndex: null,
            from: credit.from,
            amount: credit.amount,
            blockTime: credit.blockTime,
          });
        }
      }
      readUpTo = entry.signature;
    }
    return { transfers, readUpTo, unreadable };
  }

  /**
   * What `tokenAccount` gained in USDC in a confirmed transaction (see creditOf): null for a failed
   * one, `not_yet` when the RPC listed the signature but cannot return the transaction yet,
   * `unreadable` when it returns it without the metadata the balances are read from.
   */
  private async usdcCredit(txSignature: string, tokenAccount: string) {
    const found = await call(() =>
      this.rpc
        .getTransaction(toSignature(txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
        .send(),
    );
    if (found === null) return 'not_yet' as const;
    if (!found.meta) return 'unreadable' as const;
    if (found.meta.err !== null) return null;
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(found.transaction[0]));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    const loaded = found.meta.loadedAddresses;
    const accountKeys = [...message.staticAccounts, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])].map(String);
    const credit = creditOf(tokenAccount, this.usdc, accountKeys, found.meta.preTokenBalances ?? [], found.meta.postTokenBalances ?? []);
    return { ...credit, blockTime: found.blockTime === null ? null : Number(found.blockTime) };
  }

  async prepareTestMint(): Promise<PreparedTransfer> {
    throw new CofferError('not_sim', `the faucet exists only on the sim network (this is ${this.network})`);
  }

  ownWallets(): string[] {
    return [];
  }

  async close(): Promise<void> {}
}
