import { CofferError, isCofferError } from './errors.js';
import { actorOf, requireAgentScope, type Principal } from './auth.js';
import { requestApproval } from './approvals.js';
import type { EngineContext } from './context.js';
import { getAgentOrThrow } from './agents.js';
import { newId } from './ids.js';
import { formatUsdc, parseAmount } from './money.js';
import { sendReserved } from './transfers.js';
import type { AllocationRecord } from './ports/store.js';

/**
 * Moves USDC from the owner's treasury to an agent's wallet, on chain. Funding an agent loosens what
 * it can spend, so an agent's own request waits for the owner's approval. Reserved like a payment, so
 * concurrent allocations cannot overdraw.
 */
export async function allocate(ctx: EngineContext, principal: Principal, agentId: string, amountText: string) {
  requireAgentScope(principal, agentId);
  const { owner } = principal;
  const amount = parseAmount(amountText);
  const agent = getAgentOrThrow(ctx, owner, agentId);
  // An agent funding itself loosens what it can spend: it waits for the owner.
  if (principal.kind === 'agent') return requestApproval(ctx, principal, 'allocate', agentId, { amount: formatUsdc(amount) });
  const treasuryBalance = await ctx.chain.usdcBalance(owner);

  const allocation = ctx.store.transaction(() => {
    const available = treasuryBalance - ctx.store.pendingAllocationsTotal(owner);
    if (available < amount) {
      throw new CofferError(
        'insufficient_treasury_funds',
        `the treasury holds ${formatUsdc(available < 0n ? 0n : available)} USDC available, less than ${formatUsdc(amount)}`,
      );
    }
    const record: AllocationRecord = {
      id: newId('alc'),
      owner,
      agentId,
      amount,
      status: 'pending',
      txSignature: null,
      txWire: null,
      lastValidBlockHeight: null,
      errorCode: null,
      createdAt: ctx.clock.now(),
      settledAt: null,
    };
    ctx.store.insertAllocation(record);
    return record;
  });

  let txSignature: string;
  try {
    txSignature = await sendReserved(
      ctx,
      {
        kind: 'allocation',
        id: allocation.id,
        owner,
        agentId,
        actor: actorOf(principal),
        detail: { amount: formatUsdc(amount) },
      },
      {
        from: owner,
        to: agent.walletAddress,
        amount,
        memo: `coffer allocation ${allocation.id}`,
        reference: allocation.id,
        feePayer: owner,
        createRecipientAccount: true,
      },
    );
  } catch (error) {
    if (isCofferError(error) && error.code === 'insufficient_funds') {
      throw new CofferError('insufficient_treasury_funds', 'the treasury does not hold enough USDC for this allocation');
    }
    throw error;
  }
  const balance = await ctx.chain.usdcBalance(agent.walletAddress);
  return {
    agentId,
    allocationId: allocation.id,
    amount: formatUsdc(amount),
    currency: 'USDC' as const,
    txSignature,
    balance: formatUsdc(balance),
  };
}
