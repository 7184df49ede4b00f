import { fileBaseWallets } from '../rails.js';
import { audit, type EngineContext } from '../context.js';
import { CofferError } from '../../wire/errors.js';
import { markPhraseConfirmed } from './status.js';
import { recordOwner } from '../treasury/treasury.js';
import type { AgentRecord } from '../ports/store.js';
import type { Policy } from '../../wire/policy/policy.js';
import { limitsOnly } from '../../wire/policy/policy.js';

/**
 * The policy of an agent wallet found by a restore from the recovery phrase: one micro-USDC a day,
 * so nothing moves until the owner sets a real one (the wallet's earlier policy lived in the lost
 * ledger). The agent is stopped as well, and has no key until the owner gives it one.
 */
const RECOVERED_POLICY: Policy = limitsOnly(1n, 1n);

/** The agent id of the wallet at a derivation index. */
const recoveredAgentId = (index: number) => `wallet-${index}`;

/**
 * A treasury brought back from its recovery phrase into an empty ledger: the phrase's first wallet,
 * and each agent wallet a scan of the chain found in use (`agents`: derivation indexes), as stopped
 * agents with a frozen policy and no key, whose balances are what the chain holds. The phrase counts
 * as written down (the owner just typed it whole). The next agent gets the index after the last one
 * found.
 */
export async function recoverTreasury(ctx: EngineContext, recover: { phrase: string; agents: number[] }) {
  if (ctx.store.listOwners().length > 0) {
    throw new CofferError('data_dir_in_use', 'this data dir already holds a treasury: a restore never replaces one');
  }
  const owner = await ctx.vault.createWallet({ kind: 'treasury', phrase: recover.phrase });
  const agents: AgentRecord[] = [];
  for (const index of recover.agents) {
    const walletAddress = await ctx.vault.createWallet({ kind: 'phrase-index', treasury: owner, index });
    agents.push({
      owner,
      agentId: recoveredAgentId(index),
      walletAddress,
      displayName: `Wallet #${index} (restored)`,
      status: 'suspended',
      createdAt: ctx.clock.now(),
      statusReason: null,
      statusChangedAt: null,
      archivedAt: null,
    });
  }
  await fileBaseWallets(ctx, owner, [owner, ...agents.map((agent) => agent.walletAddress)]);
  const ownerKey = await recordOwner(ctx, owner, () => {
    markPhraseConfirmed(ctx, owner);
    for (const agent of agents) ctx.store.insertAgent(agent, RECOVERED_POLICY);
    audit(ctx, {
      actor: 'owner',
      owner,
      action: 'owner.restore_from_phrase',
      detail: {
        network: ctx.chain.network,
        agents: agents.map((agent) => ({ agentId: agent.agentId, walletAddress: agent.walletAddress })),
      },
    });
  });
  return { owner, ownerKey, created: false, agents: agents.map((agent) => agent.agentId) };
}
