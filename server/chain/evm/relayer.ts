import type { Address, Hash, Hex, LocalAccount, PublicClient } from 'viem';
import type { Clock } from '../../core/ports/keys.js';

/** How long the fees read from the node are used before they are read again. */
const FEES_FOR_MS = 1_000;
/** How long a transaction may wait unmined before it is replaced: Base makes a block every 2 s. */
export const STUCK_AFTER_MS = 30_000;
/** A replacement's fees, in percent of the one it replaces: nodes take one from 10 % above (geth). */
const REPLACEMENT_PERCENT = 125n;
/** How geth, EDR and others refuse a transaction at a nonce that one priced higher holds. */
const UNDERPRICED = /underpriced|fee too low/i;
/**
 * How geth, reth, EDR (and Nethermind, "OldNonce") refuse a nonce already used: a transaction of the
 * treasury's key sent outside Coffer (its phrase opens the account in a wallet app) took it.
 */
const NONCE_USED = /nonce too low|OldNonce/i;

/** A transaction sent and not yet seen mined: what replacing it at its nonce needs. */
interface InFlight {
  nonce: number;
  to: Address;
  data: Hex;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  hash: Hash;
  sentAt: number;
}

const bumped = (fee: bigint) => (fee * REPLACEMENT_PERCENT + 99n) / 100n;
/**
 * The most a relayed transaction pays a unit of gas: twice the latest block's base fee (it stays
 * valid through several full blocks) plus the tip. What gasCover counts a move at.
 */
export const maxFeePerGas = (baseFee: bigint, tip: bigint) => 2n * baseFee + tip;
const larger = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * An account that sends transactions for others (the treasury's, for every move on Base): one at a
 * time, each with the nonce after the last it sent (read from the node once, and again after a send
 * the node refused: where it refused the nonce as used, by a transaction the treasury's key sent
 * outside Coffer, the same send goes again at once at the nonce read), signed here and sent raw.
 * Fees: the node's suggested priority fee, and a max fee of twice the latest block's base fee plus
 * that (it stays valid through several full blocks), read at most once a second.
 *
 * A transaction still unmined STUCK_AFTER_MS after it was sent (the base fee rose past its max fee, or
 * the node dropped it) holds back every later one, so the next send first replaces it: the same
 * nonce and data, its fees raised by a quarter, or to today's where those are higher. A send of data
 * already in flight (reconciliation sending an authorization again) does not add a second
 * transaction: it is the one in flight, replaced when stuck. After a restart nothing is known of what
 * waited: where the node holds more of this account's transactions than it mined, the next sends take
 * those nonces first with twice today's fees, replacing whatever waited there (each carried an
 * authorization that lands once at most, and whose row reconciliation sends again until it lands).
 */
export class Relayer {
  private nextNonce: number | null = null;
  private fees: { readAt: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | null = null;
  private turn: Promise<unknown> = Promise.resolve();
  private readonly inFlight = new Map<number, InFlight>();

  constructor(
    private readonly account: LocalAccount,
    private readonly client: PublicClient,
    private readonly chainId: number,
    private readonly clock: Clock,
  ) {}

  get address(): Address {
    return this.account.address;
  }

  send(to: Address, data: Hex, gas: bigint): Promise<Hash> {
    const sent = this.turn.then(async () => {
      await this.replaceStuck();
      const carrying = [...this.inFlight.values()].find((tx) => tx.to === to && tx.data === data);
      if (carrying !== undefined) return carrying.hash;
      let { nonce, feeFactor } = await this.nonceToSend();
      // A node that says the nonce holds a transaction priced higher (one sent before a restart that
      // its pending count did not show) is answered with fees doubled, three times at most; one that
      // says the nonce was used (by a transaction sent outside Coffer) with the nonce read again, once.
      let doubled = 0;
      let reread = false;
      for (;;) {
        const fees = await this.currentFees();
        const tx = {
          nonce,
          to,
          data,
          gas,
          maxFeePerGas: fees.maxFeePerGas * feeFactor,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas * feeFactor,
        };
        let hash: Hash;
        try {
          hash = await this.signAndSend(tx);
        } catch (error) {
          const refusal = (error as Error).message;
          if (doubled < 3 && UNDERPRICED.test(refusal)) {
            feeFactor *= 2n;
            doubled += 1;
            continue;
          }
          if (!reread && NONCE_USED.test(refusal)) {
            reread = true;
            ({ nonce, feeFactor } = await this.nonceToSend());
            continue;
          }
          throw error;
        }
        this.nextNonce = nonce + 1;
        this.inFlight.set(nonce, { ...tx, hash, sentAt: this.clock.now() });
        return hash;
      }
    });
    this.turn = sent.catch(() => undefined);
    return sent;
  }

  /** A transaction seen mined: it no longer needs watching. */
  mined(hash: Hash): void {
    for (const [nonce, tx] of this.inFlight) if (tx.hash === hash) this.inFlight.delete(nonce);
  }

  /**
   * The nonce for a new transaction, and its fees' factor. After a start (or a refused send), the
   * node is asked: a nonce it holds a transaction of this account at that this relayer did not send
   * (sent before a restart) is taken first, its fees doubled (send doubles them again if refused).
   */
  private async nonceToSend(): Promise<{ nonce: number; feeFactor: bigint }> {
    if (this.nextNonce !== null) return { nonce: this.nextNonce, feeFactor: 1n };
    const [mined, pending] = await Promise.all([
      this.client.getTransactionCount({ address: this.account.address, blockTag: 'latest' }),
      this.client.getTransactionCount({ address: this.account.address, blockTag: 'pending' }),
    ]);
    for (let nonce = mined; nonce < pending; nonce += 1) {
      if (this.inFlight.has(nonce)) continue;
      return { nonce, feeFactor: 2n };
    }
    const known = [...this.inFlight.keys()].filter((nonce) => nonce >= mined);
    return { nonce: Math.max(pending, ...known.map((nonce) => nonce + 1)), feeFactor: 1n };
  }

  /** Replaces, in nonce order, each transaction in flight longer than STUCK_AFTER_MS that is not mined. */
  private async replaceStuck(): Promise<void> {
    const now = this.clock.now();
    if (![...this.inFlight.values()].some((tx) => now - tx.sentAt >= STUCK_AFTER_MS)) return;
    const mined = await this.client.getTransactionCount({ address: this.account.address, blockTag: 'latest' });
    for (const nonce of this.inFlight.keys()) if (nonce < mined) this.inFlight.delete(nonce);
    this.fees = null;
    const fees = await this.currentFees();
    const stuck = [...this.inFlight.values()].filter((tx) => now - tx.sentAt >= STUCK_AFTER_MS).sort((a, b) => a.nonce - b.nonce);
    for (const tx of stuck) {
      const maxPriorityFeePerGas = larger(bumped(tx.maxPriorityFeePerGas), fees.maxPriorityFeePerGas);
      const replacement = {
        ...tx,
        maxPriorityFeePerGas,
        maxFeePerGas: larger(larger(bumped(tx.maxFeePerGas), fees.maxFeePerGas), maxPriorityFeePerGas),
      };
      const hash = await this.signAndSend(replacement);
      this.inFlight.set(tx.nonce, { ...replacement, hash, sentAt: now });
    }
  }

  /** Signs and sends a transaction; a refusal makes the nonce and fees be read again for the next one. */
  private async signAndSend(tx: Omit<InFlight, 'hash' | 'sentAt'>): Promise<Hash> {
    const serializedTransaction = await this.account.signTransaction({ type: 'eip1559', chainId: this.chainId, ...tx });
    try {
      return await this.client.sendRawTransaction({ serializedTransaction });
    } catch (error) {
      // Its nonce or fees were not what the node wanted: both are read again for the next send.
      this.nextNonce = null;
      this.fees = null;
      throw error;
    }
  }

  private async currentFees() {
    // Wall time, not the clock the rest keeps: how fresh the node's answer is (a test's clock that
    // stands still must not keep a fee for good).
    const now = Date.now();
    if (this.fees !== null && now - this.fees.readAt < FEES_FOR_MS) return this.fees;
    const [block, maxPriorityFeePerGas] = await Promise.all([this.client.getBlock(), this.client.estimateMaxPriorityFeePerGas()]);
    const baseFee = block.baseFeePerGas ?? 0n;
    this.fees = { readAt: now, maxFeePerGas: maxFeePerGas(baseFee, maxPriorityFeePerGas), maxPriorityFeePerGas };
    return this.fees;
  }
}
