import { addressOn, chainOf, fileBaseWallets, openBase } from '../rails.js';
import { RAILS, type Rail } from '../../wire/rails.js';
import type { Chain } from '../ports/chain.js';
import { CofferError } from '../../wire/errors.js';
import { actorOf, requireOwner, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { hashApiKey, hashRequest, newApiKey, newId } from '../ids.js';
import { earlierAttempt, moveMoney, reservedWith } from '../transfers/lifecycle.js';
import { formatUsdc, parseAmount, MICRO_PER_USDC } from '../../wire/money.js';
import type { DepositRecord } from '../ports/store.js';
import { iso } from '../../wire/views.js';
import { ownerKeySecret } from '../ports/keys.js';
import type { Deposit, Deposits, FaucetResult } from '../../wire/answers/treasury.js';

/** Test USDC a new sim treasury starts with. */
export const SIM_STARTING_FUNDS = 1_000n * MICRO_PER_USDC;

/**
 * The owner of this data dir: created on first start (treasury wallet in the key store, owner key),
 * loaded afterwards. The owner key is kept in the key store so `serve` can write it to the
 * connection file on every start; SQLite holds only its hash. A lost key is replaced by a new one.
 */
export async function ensureOwner(ctx: EngineContext): Promise<{ owner: string; ownerKey: string; created: boolean }> {
  const existing = ctx.store.listOwners()[0];
  if (existing) {
    let ownerKey = await ctx.vault.getSecret(ownerKeySecret(existing.address));
    const valid = ownerKey !== null && ctx.store.findApiKey(hashApiKey(ownerKey))?.owner === existing.address;
    if (!valid || ownerKey === null) {
      ownerKey = await rotateOwnerKey(ctx, existing.address);
    }
    await ctx.chain.prepareFeePayer(existing.address);
    // A data dir made before the Base rail: its wallets get their accounts now, once.
    const agents = [...ctx.store.listAgents(existing.address), ...ctx.store.listArchivedAgents(existing.address)];
    await fileBaseWallets(ctx, existing.address, [existing.address, ...agents.map((agent) => agent.walletAddress)]);
    await ctx.base?.prepareFeePayer(addressOn(ctx, existing.address, 'base'));
    return { owner: existing.address, ownerKey, created: false };
  }

  const owner = await ctx.vault.createWallet({ kind: 'treasury' });
  await fileBaseWallets(ctx, owner, [owner]);
  const ownerKey = await recordOwner(ctx, owner, () =>
    audit(ctx, { actor: 'system', owner, action: 'owner.create', detail: { network: ctx.chain.network } }),
  );
  if (ctx.chain.isSim) await mintIntoTreasury(ctx, owner, SIM_STARTING_FUNDS, 'system', null, 'sol');
  if (ctx.base?.isSim === true) await mintIntoTreasury(ctx, owner, SIM_STARTING_FUNDS, 'system', null, 'base');
  return { owner, ownerKey, created: true };
}

/**
 * A treasury whose wallet the key vault just made (the first wallet of a recovery phrase) into the
 * ledger: its owner key (stored first, only its hash in the ledger), and `more`, written in the same
 * transaction. Answers the owner key.
 */
export async function recordOwner(ctx: EngineContext, owner: string, more: () => void): Promise<string> {
  const ownerKey = newApiKey('owner');
  await ctx.vault.setSecret(ownerKeySecret(owner), ownerKey);
  ctx.store.transaction(() => {
    ctx.store.insertOwner({ address: owner, createdAt: ctx.clock.now() });
    ctx.store.setMeta(phraseMadeMeta(owner), String(ctx.clock.now()));
    ctx.store.insertApiKey(hashApiKey(ownerKey), { kind: 'owner', owner }, ctx.clock.now());
    more();
  });
  await ctx.chain.prepareFeePayer(owner);
  // The treasury's Base account sends every move on Base and pays its gas.
  await ctx.base?.prepareFeePayer(addressOn(ctx, owner, 'base'));
  return ownerKey;
}

async function rotateOwnerKey(ctx: EngineContext, owner: string): Promise<string> {
  const ownerKey = newApiKey('owner');
  await ctx.vault.setSecret(ownerKeySecret(owner), ownerKey);
  ctx.store.transaction(() => {
    ctx.store.revokeApiKeys({ kind: 'owner', owner }, { reason: 'replaced', at: ctx.clock.now() });
    ctx.store.insertApiKey(hashApiKey(ownerKey), { kind: 'owner', owner }, ctx.clock.now());
    audit(ctx, { actor: 'system', owner, action: 'owner.key_rotated' });
  });
  return ownerKey;
}

const depositView = (deposit: DepositRecord): Deposit => ({
  id: deposit.id,
  rail: deposit.rail,
  txSignature: deposit.txSignature ?? '',
  amount: formatUsdc(deposit.amount),
  currency: 'USDC' as const,
  from: deposit.from,
  timestamp: iso(deposit.createdAt),
  source: deposit.kind === 'faucet' ? ('faucet' as const) : ('chain' as const),
});

/**
 * Mints test USDC into the treasury (sim), through the lifecycle of every move of money: signed,
 * recorded as a pending deposit, sent, confirmed; a crash at any point leaves a row that the next
 * start settles against the chain. The same Idempotency-Key within 24 h mints once and answers the
 * first deposit.
 */
async function mintIntoTreasury(
  ctx: EngineContext,
  owner: string,
  amount: bigint,
  actor: string,
  idempotencyKey: string | null,
  rail: Rail,
) {
  const request = ['faucet', amount.toString(), ...(rail === 'sol' ? [] : [rail])];
  const key =
    idempotencyKey === null ? null : { kinds: ['faucet'] as const, agentId: null, key: idempotencyKey, requestHash: hashRequest(request) };
  const earlier = key === null ? null : await earlierAttempt(ctx, owner, key, 'coffer');
  if (earlier !== null) return answerEarlier(earlier);
  const chain = chainOf(ctx, rail);
  const moved = await moveMoney(ctx, owner, {
    kind: 'faucet',
    actor,
    key,
    sentBy: 'coffer',
    rail,
    sign: () => chain.prepareTestMint(addressOn(ctx, owner, rail), amount),
    reserve: (signed): DepositRecord => ({
      kind: 'faucet',
      id: newId('dep'),
      owner,
      agentId: null,
      amount,
      from: chain.usdc,
      ...reservedWith(ctx, signed, key, rail),
    }),
  });
  return 'earlier' in moved ? answerEarlier(moved.earlier) : moved.row;
}

function answerEarlier(earlier: DepositRecord): DepositRecord {
  if (earlier.status === 'failed') {
    throw new CofferError(
      'chain_rejected',
      `the faucet mint made with this Idempotency-Key failed (${earlier.errorCode ?? 'unknown'}); nothing was minted`,
    );
  }
  return earlier;
}

/** Sim network only: mints test USDC into the treasury and records it as a deposit. */
export async function faucet(
  ctx: EngineContext,
  principal: Principal,
  amountText: string,
  idempotencyKey: string | null = null,
  rail: Rail = 'sol',
): Promise<FaucetResult> {
  requireOwner(principal);
  const chain = chainOf(ctx, rail);
  if (!chain.isSim) throw new CofferError('not_sim', `the faucet exists only on the sim network (this is ${chain.network})`);
  const deposit = await mintIntoTreasury(ctx, principal.owner, parseAmount(amountText), actorOf(principal), idempotencyKey, rail);
  const treasury = addressOn(ctx, principal.owner, rail);
  const balance = await chain.usdcBalance(treasury);
  return {
    deposit: depositView(deposit),
    treasury: { walletAddress: treasury, rail, balance: formatUsdc(balance), currency: 'USDC' as const },
  };
}

export const DEPOSITS_LIMIT = 200;

export function listDeposits(ctx: EngineContext, principal: Principal): Deposits {
  requireOwner(principal);
  return { deposits: ctx.store.listDeposits(principal.owner, DEPOSITS_LIMIT).map(depositView) };
}

/** What a round of the deposit watcher found: how many deposits it recorded, and the rails it could not read. */
export interface DepositsPolled {
  recorded: number;
  unread: { rail: Rail; error: Error }[];
}

/**
 * Records USDC that arrived in the treasury from outside, on each rail read from an RPC (the embedded
 * chains have no outside), found by the deposit watcher. A rail whose node cannot be read is named
 * in the answer, not thrown: the other rail's deposits are read all the same. A failure to record
 * what was read (the ledger's) is thrown.
 */
export async function pollDeposits(ctx: EngineContext, owner: string, rails: readonly Rail[] = RAILS): Promise<DepositsPolled> {
  const polled: DepositsPolled = { recorded: 0, unread: [] };
  for (const rail of rails) {
    const chain = rail === 'sol' ? ctx.chain : openBase(ctx);
    if (chain === null || chain.isSim) continue;
    const cursorMeta = rail === 'sol' ? `deposits.last_signature:${owner}` : `deposits.cursor:${rail}:${owner}`;
    let read: Awaited<ReturnType<Chain['incomingTransfers']>>;
    try {
      read = await chain.incomingTransfers(addressOn(ctx, owner, rail), ctx.store.getMeta(cursorMeta));
    } catch (error) {
      polled.unread.push({ rail, error: error instanceof Error ? error : new Error(String(error)) });
      continue;
    }
    // What was read is recorded, or the failure thrown: the ledger's, never called the node's.
    polled.recorded += recordRailDeposits(ctx, owner, rail, cursorMeta, read);
  }
  return polled;
}

/**
 * One rail's deposits read since its cursor, recorded (with the cursor, in one write), none sent from
 * a wallet of this data dir: an agent giving USDC back or paying the treasury (image generation) is
 * Coffer's own move. On Solana a deposit is what the treasury's account gained in a transaction,
 * recorded once, and a payment's transaction is Coffer's own. On Base it is one Transfer log, told
 * from Coffer's own moves by its sender (a pending row names its authorization, not yet its
 * transaction): one transaction may pay the treasury more than once, or beside an agent's x402
 * payment a facilitator ran in it (schema 12).
 */
function recordRailDeposits(
  ctx: EngineContext,
  owner: string,
  rail: Rail,
  cursorMeta: string,
  { transfers, readUpTo, unreadable }: Awaited<ReturnType<Chain['incomingTransfers']>>,
): number {
  let recorded = 0;
  ctx.store.transaction(() => {
    for (const transfer of transfers) {
      if (
        rail === 'sol' ? ctx.store.isPaymentTransaction(transfer.txSignature) : ctx.store.walletOfRailAddress(rail, transfer.from) !== null
      )
        continue;
      const inserted = ctx.store.insertChainDeposit({
        id: newId('dep'),
        owner,
        txSignature: transfer.txSignature,
        transferIndex: transfer.transferIndex,
        amount: transfer.amount,
        from: transfer.from,
        createdAt: transfer.blockTime === null ? ctx.clock.now() : transfer.blockTime * 1000,
        rail,
      });
      if (inserted) {
        recorded += 1;
        ctx.events.emit({ type: 'deposit', owner, amount: formatUsdc(transfer.amount), txSignature: transfer.txSignature, rail });
      }
    }
    for (const txSignature of unreadable) {
      audit(ctx, {
        actor: 'system',
        owner,
        action: 'deposit.unreadable',
        detail: { txSignature, rail, reason: 'the RPC could not return this transaction; it was passed over' },
      });
    }
    // The deposits and the cursor past them in one transaction: a crash keeps both or neither.
    if (readUpTo !== null) ctx.store.setMeta(cursorMeta, readUpTo);
  });
  return recorded;
}

/** The ledger's note that this treasury was made with a recovery phrase (set once, at its creation). */
export const phraseMadeMeta = (owner: string) => `backup.phrase_made:${owner}`;
