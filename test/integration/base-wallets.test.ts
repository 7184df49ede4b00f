import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { evmWalletKeyAt, seedOfPhrase } from '../../server/keys/recovery-phrase.js';
import { deployAgent, signIn, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';

/**
 * Issue 49, point 1: the treasury and every agent have an account on the Base rail, the EVM account
 * their recovery phrase derives at the wallet's own index (m/44'/60'/0'/0/i), shown beside the Solana
 * wallet wherever an agent or the treasury is shown.
 */
const phraseOf = async (t: TestCoffer) => {
  const shown = await t.api('POST', t.withOwner('/v1/backup/phrase'), { key: await signIn(t) });
  expect(shown.status).toBe(200);
  return (shown.body.words as string[]).join(' ');
};
const evmAccountAt = async (phrase: string, index: number) =>
  privateKeyToAccount(bytesToHex(evmWalletKeyAt(await seedOfPhrase(phrase), index))).address;

describe("each wallet's account on Base", () => {
  it("is the phrase's EVM account at the wallet's index: the treasury at 0, agents after, in every answer that shows them", async () => {
    const t = await startCoffer();
    try {
      const first = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
        body: { agentId: 'first', dailyBudget: '5', maxPerPayment: '1' },
      });
      await deployAgent(t, 'second');
      const phrase = await phraseOf(t);
      expect(first.body.agent.wallets).toEqual({ sol: first.body.agent.walletAddress, base: await evmAccountAt(phrase, 1) });

      const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
      expect(dashboard.treasury.wallets).toEqual({ sol: t.owner, base: await evmAccountAt(phrase, 0) });
      const listed = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents as { agentId: string; wallets: object }[];
      expect(listed.map((agent) => [agent.agentId, agent.wallets])).toEqual([
        ['first', { sol: first.body.agent.walletAddress, base: await evmAccountAt(phrase, 1) }],
        ['second', expect.objectContaining({ base: await evmAccountAt(phrase, 2) })],
      ]);
      expect(dashboard.agents.map((agent: { wallets: object }) => agent.wallets)).toEqual(listed.map((agent) => agent.wallets));
    } finally {
      await t.stop();
    }
  });

  it('is found again, the same, for a data dir made before the Base rail when it opens', async () => {
    const dataDir = tempDataDir();
    const t = await startCoffer({ dataDir, keepDataDir: true });
    let before: { treasury: object; agent: object };
    try {
      await deployAgent(t, 'older');
      const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
      before = { treasury: dashboard.treasury.wallets, agent: dashboard.agents[0].wallets };
      // What a data dir from before has: no Base accounts in the ledger, none in the key store.
      t.coffer.db.exec('DELETE FROM rail_wallets');
    } finally {
      await t.stop();
    }
    const keys = join(dataDir, 'keys');
    // The treasury's and the agent's (the embedded chain's faucet keeps its own).
    const ours = [before.treasury, before.agent].flatMap((wallets) => Object.values(wallets as Record<string, string>));
    const evmFiles = readdirSync(keys).filter((name) => name.startsWith('evm-wallet') && ours.some((address) => name.includes(address)));
    expect(evmFiles).toHaveLength(4);
    for (const name of evmFiles) rmSync(join(keys, name));

    const again = await startCoffer({ dataDir });
    try {
      const dashboard = (await again.api('GET', again.withOwner('/v1/dashboard'))).body;
      expect({ treasury: dashboard.treasury.wallets, agent: dashboard.agents[0].wallets }).toEqual(before);
      expect(
        readdirSync(keys).filter((name) => name.startsWith('evm-wallet') && ours.some((address) => name.includes(address))),
      ).toHaveLength(4);
    } finally {
      await again.stop();
    }
  });
});
