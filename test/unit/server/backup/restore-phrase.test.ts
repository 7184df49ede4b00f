import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { findPhraseWallets, GAP_LIMIT } from '../../../../server/backup/restore-phrase.js';
import { seedOfPhrase, walletKeyAt } from '../../../../server/keys/recovery-phrase.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('finding the wallets of a recovery phrase on a chain', () => {
  const addresses = async (count: number) => {
    const seed = await seedOfPhrase(ABANDON);
    return Promise.all(
      Array.from({ length: count }, async (_, index) => (await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(seed, index))).address),
    );
  };

  /** A chain on which the wallets at these indexes were used; it counts what it was asked. */
  async function chainUsing(indexes: number[]) {
    const all = await addresses(120);
    const used = new Set<string>(indexes.map((index) => all[index]!));
    const asked: string[] = [];
    return { all, asked, hasActivity: async (wallet: string) => (asked.push(wallet), used.has(wallet)) };
  }

  it('finds the treasury at index 0 and every used agent wallet, past gaps shorter than the gap limit', async () => {
    const chain = await chainUsing([0, 1, 3, 22, 42]);
    const found = await findPhraseWallets(ABANDON, chain.hasActivity);
    expect(found.treasury).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk');
    expect(found.treasuryUsed).toBe(true);
    expect(found.agents).toEqual([1, 3, 22, 42].map((index) => ({ index, address: chain.all[index] })));
    // Up to 20 unused after the last one used, each asked once.
    expect(found.scanned).toBe(42 + GAP_LIMIT + 1);
    expect(new Set(chain.asked).size).toBe(chain.asked.length);
    expect(chain.asked).toHaveLength(found.scanned);
  });

  it('stops after GAP_LIMIT unused wallets in a row: a wallet past that is not looked for', async () => {
    const chain = await chainUsing([0, 2, 2 + GAP_LIMIT + 1]);
    const found = await findPhraseWallets(ABANDON, chain.hasActivity);
    expect(found.agents.map((agent) => agent.index)).toEqual([2]);
    expect(found.scanned).toBe(2 + GAP_LIMIT + 1);
    expect(chain.asked).not.toContain(chain.all[2 + GAP_LIMIT + 1]);
  });

  it('says when nothing of the phrase was ever used, having looked at the gap limit past the treasury', async () => {
    const chain = await chainUsing([]);
    const found = await findPhraseWallets(ABANDON, chain.hasActivity);
    expect(found).toMatchObject({ treasuryUsed: false, agents: [], scanned: GAP_LIMIT + 1 });
    const onlyAgents = await findPhraseWallets(ABANDON, (await chainUsing([5])).hasActivity);
    expect(onlyAgents).toMatchObject({ treasuryUsed: false, agents: [{ index: 5 }] });
  });
});
