import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { CofferError } from '../wire/errors.js';
import { evmWalletKeyAt, isRecoveryPhrase, normalizePhrase, seedOfPhrase, walletKeyAt } from '../keys/recovery-phrase.js';
import { bytesToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { baseNetworkOf } from '../chain/evm/networks.js';
import type { BaseRailOptions } from '../boot/base-rail.js';
import type { KeyStorePreference } from '../keys/open-secret-backend.js';
import { RpcChain } from '../chain/solana/cluster/chain.js';
import { chooseNetwork, openCoffer, type OpenedCoffer } from '../boot/open-coffer.js';
import { claimEmptyDataDir } from './restore-file.js';

/**
 * How many unused wallets in a row end a scan: BIP44's gap limit, the one Phantom, Solflare and
 * Electrum use. A restore finds every agent wallet unless 20 agents in a row were made and never
 * funded or used, and those hold nothing to find.
 */
export const GAP_LIMIT = 20;
/** Wallets asked about at once (each is three RPC reads). */
const SCAN_WINDOW = 10;

export interface PhraseWallets {
  treasury: string;
  treasuryUsed: boolean;
  /** The agent wallets in use, by derivation index, in order. */
  agents: { index: number; address: string }[];
  /** How many wallets were looked at, the treasury included. */
  scanned: number;
}

/**
 * The wallets of a recovery phrase that were used on a chain: the treasury (index 0) and every agent
 * wallet (index 1 on) with funds or history, read until GAP_LIMIT unused ones in a row.
 */
export async function findPhraseWallets(
  phrase: string,
  hasActivity: (wallet: string) => Promise<boolean>,
  gapLimit = GAP_LIMIT,
  /** Where the network has a Base rail: whether a wallet's EVM account (the same index) was used there. */
  hasBaseActivity: ((account: string) => Promise<boolean>) | null = null,
): Promise<PhraseWallets> {
  const seed = await seedOfPhrase(phrase);
  const addressAt = async (index: number) => {
    const key = walletKeyAt(seed, index);
    try {
      return (await createKeyPairSignerFromPrivateKeyBytes(key)).address;
    } finally {
      key.fill(0);
    }
  };
  /** A wallet is used when it was on either rail. */
  const usedAt = async (index: number, address: string) => {
    if (await hasActivity(address)) return true;
    if (hasBaseActivity === null) return false;
    const key = evmWalletKeyAt(seed, index);
    try {
      return await hasBaseActivity(privateKeyToAccount(bytesToHex(key)).address);
    } finally {
      key.fill(0);
    }
  };
  const treasury = await addressAt(0);
  const treasuryUsed = await usedAt(0, treasury);
  const agents: PhraseWallets['agents'] = [];
  let lastUsed = 0;
  let next = 1;
  while (next <= lastUsed + gapLimit) {
    const window = Array.from({ length: Math.min(SCAN_WINDOW, lastUsed + gapLimit - next + 1) }, (_, i) => next + i);
    const used = await Promise.all(
      window.map(async (index) => {
        const address = await addressAt(index);
        return { index, address, used: await usedAt(index, address) };
      }),
    );
    for (const wallet of used) {
      if (!wallet.used) continue;
      agents.push({ index: wallet.index, address: wallet.address });
      lastUsed = wallet.index;
    }
    next += window.length;
  }
  seed.fill(0);
  return { treasury, treasuryUsed, agents, scanned: next };
}

/**
 * The network a phrase's wallets are looked for on: a cluster. The embedded chain is refused, its
 * test money lived only in its data dir's ledger. Asked first, so a wrong network is said before
 * anyone types the words.
 */
export async function phraseNetwork(network: string, usdcMint?: string) {
  const chosen = await chooseNetwork(network, usdcMint);
  if (chosen.choice.kind === 'sim') {
    throw new CofferError(
      'backup_wrong_network',
      "a recovery phrase finds its wallets on devnet, mainnet or another cluster (--network); the embedded chain's test money lived in its data dir: restore a backup file instead",
    );
  }
  return { choice: chosen.choice, name: chosen.name };
}

/**
 * `coffer restore --phrase`: a treasury and its agent wallets from the recovery phrase alone, into an
 * empty data dir. The chain is asked which of the phrase's wallets were used before anything is
 * written; a phrase whose wallets were never used there (mistyped words that still check out, or
 * another network) is refused and changes nothing. The embedded chain is refused: its test money
 * lived only in its data dir's ledger, which a backup file restores.
 */
export async function restoreFromPhrase(
  options: {
    phrase: string;
    dataDir: string;
    network: string;
    usdcMint?: string;
    keyStore: KeyStorePreference;
    log: (message: string) => void;
  } & BaseRailOptions,
): Promise<{ coffer: OpenedCoffer; found: PhraseWallets }> {
  const phrase = normalizePhrase(options.phrase);
  if (!isRecoveryPhrase(phrase)) {
    throw new CofferError(
      'invalid_recovery_phrase',
      'that is not a recovery phrase: 12 or 24 English words, each from the BIP39 list, in order (a word is mistyped, missing or out of place)',
    );
  }
  const { choice, name } = await phraseNetwork(options.network, options.usdcMint);
  const lock = await claimEmptyDataDir(options.dataDir);
  // Said once the words are a phrase and the data dir is claimed: the scan takes a while.
  options.log('Looking for the wallets of this phrase on the chain…');
  let found: PhraseWallets;
  try {
    const chain = new RpcChain(choice.network, null);
    found = await findPhraseWallets(phrase, (wallet) => chain.hasActivity(wallet), GAP_LIMIT, await baseActivityOf(name, options));
  } catch (error) {
    lock.abandon();
    throw error;
  }
  if (!found.treasuryUsed && found.agents.length === 0) {
    lock.abandon();
    throw new CofferError(
      'nothing_to_recover',
      `none of this phrase's wallets was ever used on ${name} (treasury ${found.treasury}): check the words and the network; nothing was restored`,
    );
  }
  // Released just before the Coffer opens on it (and locks it again).
  lock.release();
  const coffer = await openCoffer({
    dataDir: options.dataDir,
    network: options.network,
    usdcMint: options.usdcMint,
    baseRpc: options.baseRpc,
    baseUsdc: options.baseUsdc,
    keyStore: options.keyStore,
    log: options.log,
    recover: { phrase, agents: found.agents.map((agent) => agent.index) },
  });
  return { coffer, found };
}

/** Where a restore also looks for the phrase's Base accounts: the network's Base rail, unless it is off. */
async function baseActivityOf(network: string, { baseRpc, baseUsdc }: BaseRailOptions) {
  if (baseRpc === 'off') return null;
  const rpcUrl = baseRpc ?? baseNetworkOf(network)?.rpcUrl;
  if (rpcUrl === undefined) return null;
  const { evmActivityReader } = await import('../chain/evm/rail.js');
  return evmActivityReader(rpcUrl, baseUsdc);
}
