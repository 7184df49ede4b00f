import { recoveryPhraseSecret as phraseAccount } from '../core/ports/keys.js';
import {
  evmWalletKeyAt,
  isRecoveryPhrase,
  newRecoveryPhrase,
  seedOfPhrase,
  walletKeyAt,
  walletKeysAt,
  type WalletKeysAt,
} from './recovery-phrase.js';
import type { SecretBackend } from './secret-backend.js';

/** The next derivation index for that treasury's agents. */
const nextIndexAccount = (treasury: string) => `recovery-next-index:${treasury}`;
const INDEX = /^[1-9][0-9]{0,9}$/;

/**
 * The wallets a recovery phrase derives: the treasury at index 0, each new agent at the next index,
 * each with its Solana key and its EVM key at that index.
 * The index is kept beside the phrase and moved on before a key is derived from it, so two wallets
 * never share one (a crash in between leaves an unused index: restoring scans past gaps). Agents are
 * made one at a time here (a chain of promises): the process holds its data dir alone.
 *
 * Security invariant: the phrase and the seeds never leave this module and the key store; the seed
 * of each treasury is kept in memory after first use, as the wallet keys are (see key-vault.ts).
 */
export function createPhraseWallets(backend: SecretBackend) {
  const seeds = new Map<string, Promise<Uint8Array | null>>();
  let queue: Promise<unknown> = Promise.resolve();

  const seedOf = (treasury: string) => {
    let seed = seeds.get(treasury);
    if (seed === undefined) {
      seed = backend.get(phraseAccount(treasury)).then((phrase) => (phrase === null ? null : seedOfPhrase(phrase)));
      seeds.set(treasury, seed);
      seed.catch(() => seeds.delete(treasury));
    }
    return seed;
  };

  return {
    /**
     * A treasury's first wallet: of a new recovery phrase, or of `phrase` when one is restored. `keep`
     * stores the wallet (and answers its address) before the phrase is filed under that address.
     */
    async newTreasury(keep: (keys: WalletKeysAt) => Promise<string>, restored?: string): Promise<string> {
      if (restored !== undefined && !isRecoveryPhrase(restored)) throw new Error('not a valid recovery phrase');
      const phrase = restored ?? newRecoveryPhrase();
      const seed = await seedOfPhrase(phrase);
      const address = await keep(walletKeysAt(seed, 0));
      await backend.set(nextIndexAccount(address), '1');
      await backend.set(phraseAccount(address), phrase);
      seeds.set(address, Promise.resolve(seed));
      return address;
    },

    /**
     * The key of the treasury's next agent wallet, or null when the treasury has no phrase (a data
     * dir made before phrases: its agents keep random keys, and its backup is the encrypted file).
     */
    nextAgentKey(treasury: string): Promise<WalletKeysAt | null> {
      const next = queue.then(async () => {
        const seed = await seedOf(treasury);
        if (seed === null) return null;
        const stored = await backend.get(nextIndexAccount(treasury));
        // Guessing would hand a new agent a wallet an older one may hold: refuse instead.
        if (stored === null || !INDEX.test(stored)) throw new Error(`the next wallet index of treasury ${treasury} is missing`);
        const index = Number(stored);
        await backend.set(nextIndexAccount(treasury), String(index + 1));
        return walletKeysAt(seed, index);
      });
      queue = next.catch(() => undefined);
      return next;
    },

    /**
     * The key of the treasury's wallet at `index` (a restore found it in use on the chain); the next
     * index moves past it, so no new agent is ever given it.
     */
    keyAt(treasury: string, index: number): Promise<WalletKeysAt> {
      const next = queue.then(async () => {
        const seed = await seedOf(treasury);
        if (seed === null) throw new Error(`treasury ${treasury} has no recovery phrase`);
        const kept = await backend.get(nextIndexAccount(treasury));
        const after = Math.max(index + 1, kept !== null && INDEX.test(kept) ? Number(kept) : 1);
        await backend.set(nextIndexAccount(treasury), String(after));
        return walletKeysAt(seed, index);
      });
      queue = next.catch(() => undefined);
      return next;
    },

    /**
     * The EVM key at the index of `wallet` among the treasury's phrase's wallets handed out so far
     * (for a wallet made before wallets had EVM accounts), or null when the phrase does not derive it.
     */
    async evmKeyOf(treasury: string, wallet: string, addressOf: (key: Uint8Array) => Promise<string>): Promise<Uint8Array | null> {
      const seed = await seedOf(treasury);
      const next = await backend.get(nextIndexAccount(treasury));
      if (seed === null || next === null || !INDEX.test(next)) return null;
      for (let index = 0; index < Number(next); index++) {
        if ((await addressOf(walletKeyAt(seed, index))) === wallet) return evmWalletKeyAt(seed, index);
      }
      return null;
    },

    /** A treasury's phrase and next index, by their names in the key store, where it has them. */
    async exportTreasury(treasury: string): Promise<Record<string, string>> {
      const entries: Record<string, string> = {};
      for (const name of [phraseAccount(treasury), nextIndexAccount(treasury)]) {
        const value = await backend.get(name);
        if (value !== null) entries[name] = value;
      }
      return entries;
    },

    /**
     * Checks a treasury's phrase and next index read from a backup, and answers how to file them. The
     * phrase must derive the treasury (`addressOf` answers the address of a key); the index never goes
     * back, so a wallet handed out since (this key store kept a later one) is never handed out again.
     */
    async checkTreasury(
      treasury: string,
      entries: { phrase?: string; nextIndex?: string },
      addressOf: (key: Uint8Array) => Promise<string>,
    ): Promise<() => Promise<void>> {
      const { phrase, nextIndex } = entries;
      if (phrase !== undefined) {
        if (!isRecoveryPhrase(phrase) || (await addressOf(walletKeyAt(await seedOfPhrase(phrase), 0))) !== treasury) {
          throw new Error(`the recovery phrase filed for treasury ${treasury} is not its phrase`);
        }
      }
      if (nextIndex !== undefined && !INDEX.test(nextIndex)) {
        throw new Error(`the next wallet index filed for treasury ${treasury} is not an index`);
      }
      return async () => {
        if (phrase !== undefined) {
          await backend.set(phraseAccount(treasury), phrase);
          seeds.delete(treasury);
        }
        if (nextIndex === undefined) return;
        const filed = queue.then(async () => {
          const kept = await backend.get(nextIndexAccount(treasury));
          const next = Math.max(Number(nextIndex), kept !== null && INDEX.test(kept) ? Number(kept) : 0);
          await backend.set(nextIndexAccount(treasury), String(next));
        });
        queue = filed.catch(() => undefined);
        await filed;
      };
    },
  };
}

/** Which treasury a phrase entry's name is of, and which entry it is; null for any other name. */
export function treasuryEntryOf(name: string): { treasury: string; entry: 'phrase' | 'nextIndex' } | null {
  for (const [entry, nameOf] of [
    ['phrase', phraseAccount],
    ['nextIndex', nextIndexAccount],
  ] as const) {
    const prefix = nameOf('');
    if (name.startsWith(prefix)) return { treasury: name.slice(prefix.length), entry };
  }
  return null;
}
