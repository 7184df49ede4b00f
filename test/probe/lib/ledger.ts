import { address } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { isJsonObject, type Api } from './http.js';
import { micro, usdc } from './money.js';

/** A payment as spend-history reports it, with the amount in micro-USDC and the time in ms. */
export interface LedgerPayment {
  id: string;
  serviceId: string;
  amount: bigint;
  status: string;
  timestamp: number;
  description: string;
  recipient: string;
  txSignature: string | null;
}

export const HISTORY_LIMIT = 500;

/** Every payment of an agent (newest first), read with the owner key. Throws if the list may be cut. */
export async function spendHistory(api: Api, agentId: string): Promise<{ payments: LedgerPayment[]; full: boolean }> {
  const body = await api.ok<{ payments: Record<string, unknown>[] }>('GET', `/v1/agents/${agentId}/spend-history?limit=${HISTORY_LIMIT}`);
  const payments = body.payments.map((p) => ({
    id: String(p.id),
    serviceId: String(p.serviceId ?? p.service),
    amount: micro(String(p.amount)),
    status: String(p.status),
    timestamp: Date.parse(String(p.timestamp)),
    description: String(p.description ?? ''),
    recipient: String(p.recipient ?? ''),
    txSignature: typeof p.txSignature === 'string' ? p.txSignature : null,
  }));
  return { payments, full: payments.length < HISTORY_LIMIT };
}

export interface DashboardAgent {
  agentId: string;
  walletAddress: string;
  status: string;
  displayName: string;
  balance: bigint;
  lifetimePayments: number;
  lifetimeSpent: bigint;
  policy: { dailyBudget: string; maxPerPayment: string; cooldownSeconds: number; allowedServices: string[] };
}

export interface Dashboard {
  treasury: bigint;
  agents: DashboardAgent[];
  recentActivity: string[];
}

export async function dashboard(api: Api): Promise<Dashboard> {
  const body = await api.ok<{ treasury: { amount: string }; agents: Record<string, unknown>[]; recentActivity: { id: string }[] }>(
    'GET',
    '/v1/dashboard',
  );
  return {
    treasury: BigInt(body.treasury.amount),
    agents: body.agents.map((a) => ({
      agentId: String(a.agentId),
      walletAddress: String(a.walletAddress),
      status: String(a.status),
      displayName: String(a.displayName),
      balance: micro(String(a.balance)),
      lifetimePayments: Number(a.lifetimePayments),
      lifetimeSpent: micro(String(a.lifetimeSpent)),
      policy: a.policy as DashboardAgent['policy'],
    })),
    recentActivity: body.recentActivity.map((r) => r.id),
  };
}

/** The on-chain balance of an agent's wallet, through the balance endpoint. */
export async function balanceOf(api: Api, agentId: string, key?: string): Promise<bigint> {
  const body = await api.ok<{ balance: string }>('GET', `/v1/agents/${agentId}/balance`, key === undefined ? {} : { key });
  return micro(body.balance);
}

/**
 * What came into the treasury on Solana, the rail the probes move money on (the dashboard's
 * `treasury.amount` is Solana's). On sim the treasury's Base account is funded at first start too:
 * a deposit of its own, on the other rail. A deposit without a rail is Solana's (a Coffer before rails).
 */
export async function depositsTotal(api: Api): Promise<{ total: bigint; count: number }> {
  const body = await api.ok<{ deposits: { amount: string; rail?: string }[] }>('GET', '/v1/treasury/deposits');
  const onSolana = body.deposits.filter((d) => (d.rail ?? 'sol') === 'sol');
  return { total: onSolana.reduce((sum, d) => sum + micro(d.amount), 0n), count: onSolana.length };
}

/** An on-chain transfer as /v1/chain/transactions/:sig shows it (public chain data). */
export interface ChainTransfer {
  succeeded: boolean;
  from: string;
  /** The credited wallet when the transaction shows it (null when only its token account is named). */
  to: string | null;
  toTokenAccount: string;
  amount: bigint;
  memo: string | null;
}

/** The USDC token account (associated token account) of a wallet. */
export async function usdcAccountOf(wallet: string, mint: string): Promise<string> {
  const [ata] = await findAssociatedTokenPda({ mint: address(mint), owner: address(wallet), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

/** True when the transfer credited `wallet` (by the named owner, else by its token account). */
export async function creditedTo(transfer: ChainTransfer, wallet: string, mint: string): Promise<boolean> {
  if (transfer.to !== null) return transfer.to === wallet;
  return transfer.toTokenAccount === (await usdcAccountOf(wallet, mint));
}

export async function chainTransfer(api: Api, txSignature: string): Promise<ChainTransfer | null> {
  const answer = await api.call('GET', `/v1/chain/transactions/${txSignature}`, { key: null, owner: null });
  if (answer.status === 404) return null;
  if (answer.status !== 200 || !isJsonObject(answer.json) || !isJsonObject(answer.json.transfer)) {
    throw new Error(`chain lookup of ${txSignature} answered ${answer.status || answer.error}`);
  }
  const t = answer.json.transfer;
  return {
    succeeded: t.succeeded === true,
    from: String(t.from),
    to: typeof t.to === 'string' ? t.to : null,
    toTokenAccount: String(t.toTokenAccount),
    amount: BigInt(String(t.amount)),
    memo: typeof t.memo === 'string' ? t.memo : null,
  };
}

/**
 * Ledger against chain: each wallet's balance (balance endpoint, dashboard treasury) must equal what
 * the API says went in and out: allocations (as their answers reported them), confirmed payments
 * (spend-history), payments received, deposits.
 */
export async function ledgerVsChain(
  api: Api,
  input: {
    /** agentId -> wallet */
    wallets: Map<string, string>;
    /** agentId -> micro-USDC allocated (answered 200) */
    allocated: Map<string, bigint>;
    /** agentId -> its payments */
    histories: Map<string, LedgerPayment[]>;
  },
): Promise<{ checked: number; mismatches: string[] }> {
  const received = new Map<string, bigint>();
  const spent = new Map<string, bigint>();
  for (const [agentId, payments] of input.histories) {
    for (const p of payments) {
      if (p.status !== 'confirmed') continue;
      spent.set(agentId, (spent.get(agentId) ?? 0n) + p.amount);
      received.set(p.recipient, (received.get(p.recipient) ?? 0n) + p.amount);
    }
  }
  const mismatches: string[] = [];
  let checked = 0;
  for (const [agentId, wallet] of input.wallets) {
    const expected = (input.allocated.get(agentId) ?? 0n) - (spent.get(agentId) ?? 0n) + (received.get(wallet) ?? 0n);
    const actual = await balanceOf(api, agentId);
    checked += 1;
    if (actual !== expected) mismatches.push(`${agentId}: chain ${usdc(actual)}, ledger ${usdc(expected)}`);
  }
  const { total: deposited } = await depositsTotal(api);
  let allocatedTotal = 0n;
  for (const amount of input.allocated.values()) allocatedTotal += amount;
  const treasuryExpected = deposited - allocatedTotal + (received.get(api.owner) ?? 0n);
  const treasury = (await dashboard(api)).treasury;
  checked += 1;
  if (treasury !== treasuryExpected) mismatches.push(`treasury: chain ${usdc(treasury)}, ledger ${usdc(treasuryExpected)}`);
  return { checked, mismatches };
}

/** Deploys an agent with the owner key; returns its wallet and key. */
export async function deploy(
  api: Api,
  agentId: string,
  policy: { dailyBudget: string; maxPerPayment: string; cooldownSeconds?: number; allowedServices?: string[] },
): Promise<{ agentId: string; walletAddress: string; apiKey: string }> {
  const body = await api.ok<{ agent: { walletAddress: string }; apiKey: string }>('POST', '/v1/agents/deploy', {
    body: { agentId, ...policy },
  });
  return { agentId, walletAddress: body.agent.walletAddress, apiKey: body.apiKey };
}

export async function allocate(api: Api, agentId: string, amount: string): Promise<bigint> {
  await api.ok('POST', `/v1/agents/${agentId}/allocate`, { body: { amount } });
  return micro(amount);
}
