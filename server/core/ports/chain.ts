import type { CofferError } from '../../wire/errors.js';

/**
 * The chain port: everything Coffer needs from a rail's chain (Solana's, an EVM chain's), in addresses
 * and micro-USDC. Adapters hold the
 * signing keys (through the key store); the core only ever names wallets by address.
 */
export interface TransferRequest {
  /** Wallet that authorises the transfer (Solana: the owner of the source token account; EVM: the authorization's signer). */
  from: string;
  /** Wallet that receives (on Solana its USDC token account is created when missing). */
  to: string;
  amount: bigint;
  memo: string;
  /** A second memo naming Coffer's record, so no two transfers are ever the same transaction. */
  reference: string;
  /** Wallet that pays the network fee (Solana: the fee payer, and any account rent; EVM: the relayer that sends the authorization): always the owner's treasury. */
  feePayer: string;
  /** Solana: create the recipient's USDC account when missing (the fee payer pays its rent). An EVM chain has none to create. */
  createRecipientAccount: boolean;
}

/**
 * A transfer signed and ready to send; persisted before it is sent. Each rail fills it in its own
 * terms: on Solana the transaction's signature, its wire bytes and the last block height it can land
 * at; on an EVM chain the authorization's nonce, the authorization (encoded) and its `validBefore`.
 */
export interface PreparedTransfer {
  /** What finds it on chain once sent: Solana's transaction signature; an EVM authorization's nonce. */
  txSignature: string;
  /** What is sent, kept so a restart sends the same bytes: base64 on Solana; `eip3009:` and JSON on an EVM chain. */
  txWire: string;
  /** Where its lifetime ends, in the chain's own measure: Solana's last valid block height; EVM's `validBefore` (seconds). */
  lifetimeEnd: bigint;
}

/**
 * A transfer the payer signed and someone else (an x402 facilitator) sends: what finds it on chain.
 * On an EVM chain `txWire` is the payer's EIP-3009 authorization, `payerSignature` its nonce and
 * `lifetimeEnd` its `validBefore` (seconds), as the x402 buyer port answers them.
 */
export interface PayerSignedTransfer {
  payer: string;
  payerSignature: string;
  txWire: string;
  lifetimeEnd: bigint;
  /** When it was made (ms): its history is read back to a little before. */
  since: number;
  /** A signature the seller reported for it, if any. */
  hint: string | null;
}

/**
 * A payment Coffer signed on a Coffer before this one (the one that wrote the backup file this ledger
 * was restored from): its transfer from `from` to `to` of `amount`, with the memos Coffer writes for
 * it (TransferRequest's `memo` and `reference`), made no earlier than `since` (ms).
 */
export interface ReferencedTransfer {
  from: string;
  to: string;
  amount: bigint;
  memo: string;
  reference: string;
  since: number;
}

/**
 * Whether that transfer landed: `found` (it succeeded, in that transaction), `none` (the paying
 * wallet's whole history since then was read, and it is not there), or `unknown` (not all of it could
 * be read).
 */
export type ReferenceSearch =
  | { state: 'found'; txSignature: string; /** When its block was made (ms), where the chain says. */ at: number | null }
  | { state: 'none' }
  | { state: 'unknown' };

/**
 * The embedded chain, whose state lives in the ledger's own database: a transfer executes inside the
 * ledger's open write transaction, so a transfer's row, the transfer and its confirmation are one
 * commit (and a crash keeps all of them or none). Only the transfer lifecycle opens that unit of work
 * (server/core/transfers/lifecycle.ts).
 */
export interface ChainInLedger {
  /**
   * Executes a prepared transfer now, synchronously, inside the caller's write transaction. Answers
   * null when it landed, else why not (a CofferError: nothing moved but, for a transaction that
   * failed inside an instruction, its fee). The chain's state has moved once it answers: whatever
   * the caller writes after it in that transaction must not roll it back.
   */
  executeInCommit(prepared: PreparedTransfer): CofferError | null;
}

/** One USDC transfer as found on the chain. */
export interface TransferFound {
  txSignature: string;
  succeeded: boolean;
  error: string | null;
  /** Wallet that authorised the transfer. */
  from: string;
  /** Token account credited. */
  toTokenAccount: string;
  /** Wallet that owns the credited token account, when it is an associated token account. */
  to: string | null;
  mint: string;
  amount: bigint;
  memo: string | null;
  blockTime: number | null;
  slot: bigint | null;
}

export type TransactionFate =
  /**
   * `landedAs`: the transaction it landed in, where that is not the row's own (an EVM authorization a
   * transaction carried; an x402 payment, which the seller sent).
   */
  | { state: 'succeeded'; landedAs?: string }
  | { state: 'failed'; landedAs?: string; error: string }
  /** It can no longer land: Solana, its blockhash expired (or the sim chain never saw it); EVM, the chain's time passed its `validBefore` unused. */
  | { state: 'dropped' }
  /** Not seen yet but may still land: ask again later. */
  | { state: 'unknown' };

/**
 * Where an x402 payment's transaction stands (see Chain.fateOfPayerSigned): a transaction's fate
 * that, once found, always names the transaction (the seller sent it, so the row names none yet).
 * `dropped`: on Solana block height passed the transaction's last valid height and it is nowhere; on
 * an EVM chain the chain's time passed the authorization's `validBefore` unused.
 */
export type PayerSignedFate =
  | { state: 'succeeded'; landedAs: string }
  | { state: 'failed'; landedAs: string; error: string }
  | { state: 'dropped' }
  | { state: 'unknown' };

export interface IncomingTransfer {
  txSignature: string;
  /**
   * On an EVM chain, the transfer's place among its transaction's transfers to the wallet (0, 1, …):
   * one transaction may pay a wallet more than once. Null on Solana, whose deposit is what the
   * account gained in the transaction.
   */
  transferIndex: number | null;
  from: string;
  amount: bigint;
  blockTime: number | null;
}

/** Read-only access to transfers: all a paid API needs to verify a receipt. */
export interface TransferLookup {
  readonly network: string;
  /** The rail's USDC: Solana's mint; an EVM chain's token contract. */
  readonly usdc: string;
  /** An EVM chain's id, as its node says it; absent on Solana. */
  readonly chainId?: number;
  findTransfer(txSignature: string): Promise<TransferFound | null>;
}

export interface Chain extends TransferLookup {
  readonly isSim: boolean;
  /** Makes sure a wallet can pay fees (sim: airdrops SOL, or test ETH on the embedded EVM chain; elsewhere a no-op). */
  prepareFeePayer(address: string): Promise<void>;
  usdcBalance(wallet: string): Promise<bigint>;
  /** Whether the wallet has a USDC token account (can receive without anyone paying rent). */
  hasUsdcAccount(wallet: string): Promise<boolean>;
  /**
   * Whether a wallet was ever used: its USDC account exists, or it or that account is in any
   * transaction (a restore from the recovery phrase looks for the wallets it derived).
   */
  hasActivity(wallet: string): Promise<boolean>;
  usdcBalances(wallets: string[]): Promise<Map<string, bigint>>;
  prepareTransfer(request: TransferRequest): Promise<PreparedTransfer>;
  /**
   * Sends a prepared transfer and waits for it to land; throws CofferError chain_* (or insufficient_funds)
   * when it does not. Answers the transaction it landed in where that is not `prepared.txSignature`
   * (on an EVM chain the prepared transfer is the payer's authorization, which the sender's
   * transaction carries).
   */
  submitTransfer(prepared: PreparedTransfer): Promise<string | void>;
  /** The embedded chain's unit of work with the ledger; null for a chain the ledger does not hold. */
  readonly inLedger: ChainInLedger | null;
  /**
   * Sends a prepared transfer again without waiting for it to land: it lands at most once (same
   * signature). Throws when it could not be sent (the caller logs it and asks again later).
   */
  resend(prepared: PreparedTransfer): Promise<void>;
  fateOf(sent: { txSignature: string; txWire: string | null; lifetimeEnd: bigint | null }): Promise<TransactionFate>;
  /**
   * x402: where a transaction the payer signed and someone else sends stands (the seller's
   * facilitator adds its fee-payer signature, so the transaction's id is unknown until it lands). It
   * is recognised by the payer's own signature: at `hint` (a signature the seller reported), else
   * among all the transactions of the payer's USDC account since `since` (ms). `dropped` only when
   * that whole history was read, block height has passed `lifetimeEnd` and the cluster no
   * longer takes the transaction's blockhash. On an EVM chain it is recognised by the
   * authorization's nonce (the token's AuthorizationUsed log), and `dropped` once the chain's time
   * passed `lifetimeEnd` (`validBefore`) with the authorization unused.
   */
  fateOfPayerSigned(sent: PayerSignedTransfer): Promise<PayerSignedFate>;
  /**
   * Looks for a payment's transfer that a Coffer restored from a backup file did not write: its
   * wallet's history since the payment was held, read back as fateOfPayerSigned reads it. Absent where
   * such a payment cannot have landed unseen: the embedded chain is restored from the same file as the
   * ledger (what the old Coffer sent after it is on the old chain), and on an EVM chain a payment's
   * authorization nonce commits to its id, so the token runs it once however often it is signed.
   */
  sentWithReference?(sent: ReferencedTransfer): Promise<ReferenceSearch>;
  /**
   * USDC received by a wallet from others since `cursor`, oldest first, and the cursor read up to, to
   * pass next time (the rail's own token: Solana's is the last signature read, an EVM chain's the last
   * block; null before the first read). A round may stop early (a bounded amount of
   * work, a transaction the RPC cannot return yet, an RPC error after some progress): what it did
   * read is returned with its cursor, and the rest comes next round. Nothing is skipped, except a
   * transaction the RPC cannot return long after its block: that is passed over and named in
   * `unreadable`, for the owner to see.
   */
  incomingTransfers(
    wallet: string,
    cursor: string | null,
  ): Promise<{ transfers: IncomingTransfer[]; readUpTo: string | null; unreadable: string[] }>;
  /**
   * Sim only: a signed transaction minting test USDC to a wallet, ready for submitTransfer (so the
   * faucet records it before sending it, as every other movement of money is).
   */
  prepareTestMint(to: string, amount: bigint): Promise<PreparedTransfer>;
  /**
   * A rail whose moves the treasury sends and pays gas for in the chain's own coin (EVM): what the
   * sending wallet holds of it (a decimal string, in ETH) and about how many moves that pays for at
   * today's fees. Absent where a rail has no such sender.
   */
  gasCover?(sender: string): Promise<{ balance: string; moves: number }>;
  /** Wallets the adapter keeps keys of for its own use (the embedded chain's test USDC mint): backed up with the ledger. */
  ownWallets(): string[];
  close(): Promise<void>;
}
