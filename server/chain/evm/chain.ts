/**
 * The EVM rail's Chain port (server/core/ports/chain.ts): USDC on an EVM chain (Base, Base Sepolia,
 * the embedded chain) through its JSON-RPC, with viem. A transfer is the paying wallet's EIP-3009
 * authorization (authorization.ts), signed before anything is written and kept in the transfer's row;
 * the treasury's account sends it and pays its gas, so agents never hold ETH. The authorization lands
 * at most once (its nonce, one per Coffer record), so sending it again is always safe, and what the
 * chain says of it (`authorizationState` and its `AuthorizationUsed` log) settles the row: landed in
 * that transaction, or, once the chain's time passed its end unused, never (`dropped`).
 */
import { randomBytes } from 'node:crypto';
import {
  bytesToHex,
  createPublicClient,
  defineChain,
  encodeFunctionData,
  formatEther,
  getAddress,
  parseSignature,
  type Address,
  type Chain as ViemChain,
  type Hash,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type Transport,
} from 'viem';
import type {
  Chain,
  IncomingTransfer,
  PayerSignedFate,
  PayerSignedTransfer,
  PreparedTransfer,
  TransactionFate,
  TransferFound,
  TransferRequest,
} from '../../core/ports/chain.js';
import type { Clock } from '../../core/ports/keys.js';
import { CofferError } from '../../wire/errors.js';
import {
  authorizationNonce,
  decodeAuthorization,
  encodeAuthorization,
  signAuthorization,
  type SignedAuthorization,
  type TokenDomain,
} from './authorization.js';
import type { EvmSigners } from './signers.js';
import { authorizationRefusal } from './transfer-errors.js';
import { USDC_ABI } from './usdc-abi.js';
import { tokenNamingReader, type TokenNaming } from './token-domain.js';
import { createBalanceReads } from './balance-reads.js';
import { nodeErrorWords, nodeUnanswered } from './node-errors.js';
import { maxFeePerGas, Relayer } from './relayer.js';
import { MOVE_GAS_LIMIT, movesCovered } from './move-gas.js';
import { findEvmTransfer, ranAuthorization } from './transfer-lookup.js';
import { REORG_MARGIN_SECONDS, safeHead, unusedForGood } from './finality.js';
import { EARLIER_SEARCHED_SECONDS, authorizationUsedIn, earliestOnChain, hasEvmActivity, transfersTo } from './log-reads.js';
import type { EvmNetwork } from './networks.js';

/** The embedded chain's test funds: gas for the wallets that send, and a faucet wallet holding test USDC. */
export interface EvmTestFunds {
  topUpGas(address: Address): Promise<void>;
  /** Mints the faucet wallet's test USDC back up to its reserve where it holds less than half. */
  topUpFaucet(): Promise<void>;
  /** The faucet's wallet: its Solana name (its keys are backed up with the ledger's) and its EVM account. */
  faucet: { wallet: string; account: Address };
}

/**
 * A chain that mines a block only when a transaction comes (the embedded one, sim/chain.ts): its time
 * stands still between them, so it is moved on to the clock's when Coffer must know whether an
 * authorization has ended.
 */
export interface BlocksOnDemand {
  /** Mines an empty block at the clock's time, after every transaction already sent to the chain. */
  mineToNow(): Promise<void>;
}

/** How long an authorization Coffer signs stays good: long enough to land through a slow RPC, short enough to give its budget back soon. */
export const AUTHORIZATION_SECONDS = 600n;
/** How long a send waits for its receipt before leaving the row to reconciliation. */
const RECEIPT_TIMEOUT_MS = 60_000;

export class EvmChain implements Chain {
  readonly inLedger = null;
  readonly network: string;
  readonly usdc: Address;
  readonly isSim: boolean;
  readonly chainId: number;
  private readonly client: PublicClient;
  private readonly viemChain: ViemChain;
  private readonly tokenNaming: () => Promise<TokenNaming>;
  private readonly balanceReads: (wallets: string[]) => Promise<Map<string, bigint>>;
  /** Each relayer sends one transaction at a time, so its nonces follow one another. */
  private readonly relayers = new Map<string, Relayer>();

  constructor(
    private readonly net: EvmNetwork,
    transport: Transport,
    private readonly signers: EvmSigners,
    private readonly clock: Clock,
    private readonly testFunds: EvmTestFunds | null,
    private readonly blocksOnDemand: BlocksOnDemand | null = null,
  ) {
    this.network = net.name;
    this.usdc = net.usdc;
    this.isSim = net.isSim;
    this.chainId = net.chainId;
    this.viemChain = defineChain({
      id: net.chainId,
      name: net.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [] } },
    });
    this.client = createPublicClient({ transport, chain: this.viemChain });
    this.tokenNaming = tokenNamingReader(this.client, net.usdc, net.chainId);
    this.balanceReads = createBalanceReads(this.client, net.usdc, net.name);
  }

  /** The token's EIP-712 domain: its name and version read from the token (token-domain.ts), this chain's id and the token's address. */
  async domain(): Promise<TokenDomain> {
    return {
      ...(await this.asked("the USDC token's name", this.tokenNaming())),
      chainId: this.net.chainId,
      verifyingContract: this.net.usdc,
    };
  }

  async gasCover(sender: string): Promise<{ balance: string; moves: number }> {
    const [wei, block, tip] = await this.asked(
      'the gas the treasury holds',
      Promise.all([
        this.client.getBalance({ address: getAddress(sender) }),
        this.client.getBlock(),
        this.client.estimateMaxPriorityFeePerGas(),
      ]),
    );
    // At the relayer's max fee now (move-gas.ts counts them).
    return { balance: formatEther(wei), moves: movesCovered(wei, maxFeePerGas(block.baseFeePerGas ?? 0n, tip)) };
  }

  async prepareFeePayer(address: string): Promise<void> {
    await this.testFunds?.topUpGas(getAddress(address));
  }

  async usdcBalance(wallet: string): Promise<bigint> {
    return this.asked(
      'a USDC balance',
      this.client.readContract({ address: this.net.usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [getAddress(wallet)] }),
    );
  }

  /** Many wallets' USDC, in one call to the node where it takes one (balance-reads.ts). */
  usdcBalances(wallets: string[]): Promise<Map<string, bigint>> {
    return this.balanceReads(wallets);
  }

  /** Any EVM address holds USDC without an account opened first. */
  async hasUsdcAccount(): Promise<boolean> {
    return true;
  }

  hasActivity(wallet: string): Promise<boolean> {
    return this.asked("a wallet's history", hasEvmActivity(this.client, this.net.usdc, wallet));
  }

  async prepareTransfer(request: TransferRequest): Promise<PreparedTransfer> {
    const to = getAddress(request.to);
    // A move without a memo (none of Coffer's own: each names its record) is named by its record alone.
    const nonce = request.memo === '' ? authorizationNonce(to, `record:${request.reference}`) : authorizationNonce(to, request.memo);
    return this.authorize(request.from, to, request.amount, nonce, request.feePayer);
  }

  async prepareTestMint(to: string, amount: bigint): Promise<PreparedTransfer> {
    if (this.testFunds === null) throw new CofferError('not_sim', `the faucet exists only on the sim network (this is ${this.network})`);
    const { account } = this.testFunds.faucet;
    await this.testFunds.topUpFaucet();
    return this.authorize(account, to, amount, bytesToHex(randomBytes(32)), account);
  }

  /** The payer's authorization, signed now: what a transfer's row keeps until it lands. */
  private async authorize(from: string, to: string, amount: bigint, nonce: Hex, relayer: string): Promise<PreparedTransfer> {
    const validBefore = BigInt(Math.floor(this.clock.now() / 1000)) + AUTHORIZATION_SECONDS;
    // The relayer's key, which sends it, read now too: missing, the move is refused before anything is
    // written (helper 202: written, it was never sent, pending until its end, "the chain could not be
    // reached"). Kept once read, as the payer's is.
    const [payer] = await Promise.all([this.signers.evmAccount(getAddress(from)), this.signers.evmAccount(getAddress(relayer))]);
    const signed = await signAuthorization(payer, {
      domain: await this.domain(),
      to: getAddress(to),
      value: amount,
      validAfter: 0n,
      validBefore,
      nonce,
      relayer: getAddress(relayer),
    });
    return { txSignature: nonce, txWire: encodeAuthorization(signed), lifetimeEnd: validBefore };
  }

  async submitTransfer(prepared: PreparedTransfer): Promise<string> {
    const authorization = this.authorizationOf(prepared.txWire);
    // Past its end by this clock: refused before it is shown to anyone, so it never left Coffer.
    if (BigInt(Math.floor(this.clock.now() / 1000)) >= authorization.validBefore) {
      throw new CofferError('transaction_expired', 'the authorization expired before it was sent');
    }
    const hash = await this.send(authorization, 'first');
    if (hash !== 'used') {
      let receipt;
      try {
        // A node that mines as it is sent (the embedded chain) has the receipt at once; another is waited for.
        receipt =
          (await this.client.getTransactionReceipt({ hash }).catch(() => null)) ??
          (await this.client.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS }));
      } catch (error) {
        throw new CofferError(
          'chain_unavailable',
          `the transfer was sent (${hash}) but its receipt did not come: ${nodeErrorWords(error)}`,
          {
            cause: error,
          },
        );
      }
      // The receipt's own hash: a transaction replaced while it was waited for (stuck, sent again with
      // higher fees) lands as its replacement.
      if (authorization.relayer !== null) this.relayers.get(authorization.relayer)?.mined(receipt.transactionHash);
      if (receipt.status === 'success') return receipt.transactionHash;
    }
    // Reverted in its block (or refused as used): the authorization did not run there; it may have
    // run in another. Unused and not past its end, it is not refused for good: its signature is public
    // in the reverted transaction, and anyone may run it until its end (after a top-up, say). It stays
    // pending, and reconciliation says what became of it: landed, or dropped once past its end. Used
    // but its log not found yet (a node whose log index lags), it moved money somewhere: pending too.
    const fate = await this.asked('what became of the transfer', this.fateOfAuthorization(authorization));
    if (fate.state === 'succeeded') return fate.landedAs;
    if (fate.state === 'unknown') {
      throw new CofferError(
        'chain_unavailable',
        hash === 'used'
          ? 'the authorization was used, but where is not found on chain yet'
          : `the transaction ${hash} carrying the transfer reverted; it may still run until its end`,
      );
    }
    throw new CofferError('transaction_expired', 'the authorization reached its end unused');
  }

  async resend(prepared: PreparedTransfer): Promise<void> {
    await this.send(this.authorizationOf(prepared.txWire), 'again');
  }

  async fateOf(sent: { txSignature: string; txWire: string | null }): Promise<TransactionFate> {
    if (sent.txWire === null) return { state: 'unknown' };
    return this.asked('what became of a transfer', this.fateOfAuthorization(this.authorizationOf(sent.txWire)));
  }

  /**
   * An x402 payment: the authorization the agent signed, which the seller's facilitator sent. The
   * transaction the seller reported (`hint`) settles it at once where its AuthorizationUsed log is
   * this authorization's; otherwise the token says whether it ran, and its log where.
   */
  async fateOfPayerSigned(sent: PayerSignedTransfer): Promise<PayerSignedFate> {
    const authorization = this.authorizationOf(sent.txWire);
    return this.asked(
      'what became of an x402 payment',
      (async (): Promise<PayerSignedFate> => {
        if (
          sent.hint !== null &&
          (await ranAuthorization(this.client, this.net.usdc, sent.hint, authorization.from, authorization.nonce))
        ) {
          return { state: 'succeeded', landedAs: sent.hint.toLowerCase() };
        }
        return this.fateOfAuthorization(authorization, BigInt(Math.floor(sent.since / 1000)));
      })(),
    );
  }

  findTransfer(txSignature: string): Promise<TransferFound | null> {
    return this.asked('a transaction', findEvmTransfer(this.client, this.net.usdc, txSignature));
  }

  /** A question to the node, its failure said in one short line (a log line, a refusal: never viem's dump with the node's URL). */
  private asked<T>(what: string, answer: Promise<T>): Promise<T> {
    return answer.catch((error: unknown) => {
      throw error instanceof CofferError ? error : nodeUnanswered(this.network, what, error);
    });
  }

  /**
   * USDC that came to `wallet` (log-reads.ts transfersTo). The cursor is `block:<n>`, the last block
   * read (never a transaction: a quiet treasury must not make the next read start further and
   * further back).
   */
  async incomingTransfers(
    wallet: string,
    cursor: string | null,
  ): Promise<{ transfers: IncomingTransfer[]; readUpTo: string | null; unreadable: string[] }> {
    const read = await transfersTo(this.client, this.net.usdc, getAddress(wallet), blockOfCursor(cursor)).catch((error: unknown) => {
      throw nodeUnanswered(this.network, 'the USDC sent to the treasury', error);
    });
    return { transfers: read.transfers, readUpTo: read.readThrough === null ? cursor : `block:${read.readThrough}`, unreadable: [] };
  }

  ownWallets(): string[] {
    return this.testFunds === null ? [] : [this.testFunds.faucet.wallet];
  }

  async close(): Promise<void> {}

  private authorizationOf(txWire: string): SignedAuthorization {
    try {
      return decodeAuthorization(txWire);
    } catch (error) {
      throw new CofferError('internal', `a transfer on ${this.network} holds no authorization Coffer signed: ${(error as Error).message}`);
    }
  }

  /**
   * Sends an authorization from its relayer: simulated first (a refusal costs no gas and is said in
   * the token's words), then signed and sent. `used`: it already ran (an earlier send landed).
   *
   * A first send's refusal fails its row at once, so its simulation must not show the node the signed
   * authorization (security invariant): a node that kept it could run it after a top-up, until its
   * end, moving money the ledger says failed. It simulates the same move as a plain `transfer` from
   * the payer, which the token refuses for the same wants (balance, a paused token, a blocked
   * account) and which no one can run. A send again (reconciliation) simulates the authorization
   * itself, which also says whether it ran: its refusal leaves the row pending until it runs or ends.
   */
  private async send(authorization: SignedAuthorization, attempt: 'first' | 'again'): Promise<Hash | 'used'> {
    if (authorization.relayer === null) throw new CofferError('internal', 'an x402 authorization is sent by the seller, never by Coffer');
    const account = await this.signers.evmAccount(authorization.relayer);
    const { v, r, s, yParity } = parseSignature(authorization.signature);
    const request = {
      address: this.net.usdc,
      abi: USDC_ABI,
      functionName: 'transferWithAuthorization',
      args: [
        authorization.from,
        authorization.to,
        authorization.value,
        authorization.validAfter,
        authorization.validBefore,
        authorization.nonce,
        Number(v ?? BigInt(yParity + 27)),
        r,
        s,
      ],
      account,
    } as const;
    const refused = (error: unknown): 'used' => {
      const refusal = authorizationRefusal(error);
      if (refusal === 'used') return 'used';
      if (refusal !== null) throw refusal;
      throw new CofferError('chain_unavailable', `the transfer could not be sent on ${this.network}: ${nodeErrorWords(error)}`, {
        cause: error,
      });
    };
    // Simulated first (one eth_call), outside the relayer's turn: a refusal costs no gas, and no send
    // waits on another's simulation. (Two sends of one authorization may both pass it: the later one
    // then fails on chain, costing its gas and moving nothing, and its sender finds where the first
    // landed.) Its gas limit is a constant, not estimated: an estimate runs the transfer again, twice
    // or more, on every move; what a limit leaves unused is not paid.
    try {
      if (attempt === 'again') await this.client.simulateContract(request);
      else
        await this.client.simulateContract({
          address: this.net.usdc,
          abi: USDC_ABI,
          functionName: 'transfer',
          args: [authorization.to, authorization.value],
          account: authorization.from,
        });
    } catch (error) {
      return refused(error);
    }
    const relayer = this.relayerOf(account);
    try {
      return await relayer.send(this.net.usdc, encodeFunctionData(request), MOVE_GAS_LIMIT);
    } catch (error) {
      return refused(error);
    }
  }

  private relayerOf(account: LocalAccount): Relayer {
    let relayer = this.relayers.get(account.address);
    if (relayer === undefined)
      this.relayers.set(account.address, (relayer = new Relayer(account, this.client, this.net.chainId, this.clock)));
    return relayer;
  }

  /**
   * What the chain says of an authorization: run (in the transaction of its AuthorizationUsed log),
   * or not run: `dropped` once the chain's time passed its end at its safe head (it never can),
   * `unknown` before. (The token says canceled as it says used; Coffer never cancels an
   * authorization it signed, and no one else holds the payer's key, so a used one ran somewhere.)
   */
  private async fateOfAuthorization(
    authorization: SignedAuthorization,
    // Coffer signs each of its own authorizations AUTHORIZATION_SECONDS before its end.
    signedAt = authorization.validBefore - AUTHORIZATION_SECONDS,
  ): Promise<{ state: 'succeeded'; landedAs: string } | { state: 'dropped' } | { state: 'unknown' }> {
    const { from, nonce } = authorization;
    // One block read first, and the token's state asked at that very block: behind a load-balanced
    // RPC two calls may reach nodes at different heights, and a state older than the block read could
    // call an authorization that ran just before its end unused and past it (`dropped`).
    let latest = await this.client.getBlock();
    // A chain that mines only when asked is brought to the clock's time once that is past the end:
    // its next blocks are mined at the clock's time or later, in the order they were sent, so an
    // authorization unused at that block can never run (without it, it would stay pending for good).
    const now = BigInt(Math.floor(this.clock.now() / 1000));
    if (this.blocksOnDemand !== null && latest.timestamp < authorization.validBefore && now >= authorization.validBefore) {
      await this.blocksOnDemand.mineToNow();
      latest = await this.client.getBlock();
    }
    // Pinned by its hash: a number names another block on another node's fork.
    const usedAtLatest = await this.client.readContract({
      address: this.net.usdc,
      abi: USDC_ABI,
      functionName: 'authorizationState',
      args: [from, nonce],
      blockHash: latest.hash,
    });
    if (usedAtLatest) {
      // Looked for from when it was signed, by the chain's clock.
      const earliest = earliestOnChain(signedAt, now, latest, this.blocksOnDemand !== null);
      const { client } = this;
      // Not found since: the clock that signed it may have run ahead, and been set right since (the
      // chain's lag measured now no longer says how far): the two hours before are read too.
      const landedAs =
        (await authorizationUsedIn(client, this.net.usdc, authorization, earliest, latest)) ??
        (await authorizationUsedIn(client, this.net.usdc, authorization, earliest - EARLIER_SEARCHED_SECONDS, latest, earliest));
      // Used but its log not found (a node whose log index lags): asked again later. Coffer never
      // cancels an authorization it signed, so a used one ran somewhere.
      return landedAs === null ? { state: 'unknown' } : { state: 'succeeded', landedAs };
    }
    if (latest.timestamp < authorization.validBefore) return { state: 'unknown' };
    // Its end passed unused on the newest block. Dropped (a retry pays afresh) only where the chain
    // cannot take that back (finality.ts): once its safe head is past the end too, and it stays unused
    // there. A node that refuses both its safe head and its finalized one is taken to be
    // REORG_MARGIN_SECONDS behind. A chain that mines only when asked is never reorganized.
    if (this.blocksOnDemand !== null) return { state: 'dropped' };
    const safe = await safeHead(this.client);
    if (safe === null)
      return latest.timestamp - REORG_MARGIN_SECONDS >= authorization.validBefore ? { state: 'dropped' } : { state: 'unknown' };
    if (safe.timestamp < authorization.validBefore) return { state: 'unknown' };
    if (!(await unusedForGood(this.client, this.net.usdc, authorization, latest, safe))) return { state: 'unknown' };
    return { state: 'dropped' };
  }
}

/** The last block a cursor from incomingTransfers read; null for none (a first read). */
function blockOfCursor(cursor: string | null): bigint | null {
  const match = cursor === null ? null : /^block:(\d+)$/.exec(cursor);
  return match ? BigInt(match[1]!) : null;
}
