import { CofferError } from './errors.js';
import { actorOf, requireOwner, type Principal } from './auth.js';
import { audit, type EngineContext } from './context.js';
import { hashApiKey, newApiKey, newId } from './ids.js';
import { formatUsdc, parseAmount, MICRO_PER_USDC } from './money.js';
import type { DepositRecord } from './ports/store.js';
import { iso } from './views.js';

/** Test USDC a new sim treasury starts with. */
export const SIM_STARTING_FUNDS = 1_000n * MICRO_PER_USDC;

const ownerKeySecret = (owner: string) => `owner-key:${owner}`;

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
    return { owner: existing.address, ownerKey, created: false };
  }

  const owner = await ctx.vault.createWallet();
  const ownerKey = newApiKey('owner');
  await ctx.vault.setSecret(ownerKeySecret(owner), ownerKey);
  ctx.store.transaction(() => {
    ctx.store.insertOwner({ address: owner, createdAt: ctx.clock.now() });
    ctx.store.insertApiKey(hashApiKey(ownerKey), { kind: 'owner', owner }, ctx.clock.now());
    audit(ctx, { actor: 'system', owner, action: 'owner.create', detail: { network: ctx.chain.network } });
  });
  await ctx.chain.prepareFeePayer(owner);
  if (ctx.chain.isSim) await recordFaucetDeposit(ctx, owner, SIM_STARTING_FUNDS, 'system');
  return { owner, ownerKey, created: true };
}

async function rotateOwnerKey(ctx: EngineContext, owner: string): Promise<string> {
  const ownerKey = newApiKey('owner');
  await ctx.vault.setSecret(ownerKeySecret(owner), ownerKey);
  ctx.store.transaction(() => {
    ctx.store.deleteApiKeys({ kind: 'owner', owner });
    ctx.store.insertApiKey(hashApiKey(ownerKey), { kind: 'owner', owner }, ctx.clock.now());
    audit(ctx, { actor: 'system', owner, action: 'owner.key_rotated' });
  });
  return ownerKey;
}

export const depositView = (deposit: DepositRecord) => ({
  id: deposit.id,
  txSignature: deposit.txSignature,
  amount: formatUsdc(deposit.amount),
  currency: 'USDC' as const,
  from: deposit.from,
  timestamp: iso(deposit.createdAt),
  source: deposit.source,
});

async function recordFaucetDeposit(ctx: EngineContext, owner: string, amount: bigint, actor: string) {
  const txSignature = await ctx.chain.mintTestUsdc(owner, amount);
  const deposit: DepositRecord = {
    id: newId('dep'),
    owner,
    txSignature,
    amount,
    from: ctx.chain.usdcMint,
    source: 'faucet',
    createdAt: ctx.clock.now(),
  };
  ctx.store.transaction(() => {
    ctx.store.insertDeposit(deposit);
    audit(ctx, { actor, owner, action: 'treasury.faucet', detail: { amount: formatUsdc(amount), txSignature } });
  });
  ctx.events.emit({ type: 'deposit', owner, amount: formatUsdc(amount), txSignature });
  return deposit;
}

/** Sim network only: mints test USDC into the treasury and records it as a deposit. */
export async function faucet(ctx: EngineContext, principal: Principal, amountText: string) {
  requireOwner(principal);
  if (!ctx.chain.isSim) throw new CofferError('not_sim', `the faucet exists only on the sim network (this is ${ctx.chain.network})`);
  const deposit = await recordFaucetDeposit(ctx, principal.owner, parseAmount(amountText), actorOf(principal));
  const balance = await ctx.chain.usdcBalance(principal.owner);
  return { deposit: depositView(deposit), treasury: { walletAddress: principal.owner, balance: formatUsdc(balance), currency: 'USDC' as const } };
}

export const DEPOSITS_LIMIT = 200;

export function listDeposits(ctx: EngineContext, principal: Principal) {
  requireOwner(principal);
  return { deposits: ctx.store.listDeposits(principal.owner, DEPOSITS_LIMIT).map(depositView) };
}

/**
 * Records USDC that arrived in the treasury from outside (RPC networks), found by the deposit watcher.
 * The signature is unique in the ledger, so a transfer seen twice is recorded once.
 */
export async function pollDeposits(ctx: EngineContext, owner: string): Promise<number> {
  const lastSeen = ctx.store.getMeta(`deposits.last_signature:${owner}`);
  const { transfers, readUpTo, unreadable } = await ctx.chain.incomingTransfers(owner, lastSeen);
  let recorded = 0;
  ctx.store.transaction(() => {
    for (const transfer of transfers) {
      const inserted = ctx.store.insertDeposit({
        id: newId('dep'),
        owner,
        txSignature: transfer.txSignature,
        amount: transfer.amount,
        from: transfer.from,
        source: 'chain',
        createdAt: transfer.blockTime === null ? ctx.clock.now() : transfer.blockTime * 1000,
      });
      if (inserted) {
        recorded += 1;
        ctx.events.emit({ type: 'deposit', owner, amount: formatUsdc(transfer.amount), txSignature: transfer.txSignature });
      }
    }
    for (const txSignature of unreadable) {
      audit(ctx, { actor: 'system', owner, action: 'deposit.unreadable', detail: { txSignature, reason: 'the RPC could not return this transaction; it was passed over' } });
    }
    // The deposits and the cursor past them in one transaction: a crash keeps both or neither.
    if (readUpTo !== null) ctx.store.setMeta(`deposits.last_signature:${owner}`, readUpTo);
  });
  return recorded;
}
