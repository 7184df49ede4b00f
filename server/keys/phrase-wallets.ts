import { recoveryPhraseSecret as phraseAccount } from '../core/ports/keys.js';
import { newRecoveryPhrase, seedOfPhrase, walletKeyAt } from './recovery-phrase.js';
import type { SecretBackend } from './secret-backend.js';

/** The next derivation index for that treasury's agents. */
const nextIndexAccount = (treasury: string) => `recovery-next-index:${treasury}`;

/**
 * The wallets a recovery phrase derives: the treasury at index 0, each new agent at the next index.
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
     * A new recovery phrase and its first wallet's key, for a new treasury. `keep` stores the wallet
     * (and answers its address) before the phrase is filed under that address.
     */
    async newTreasury(keep: (key: Uint8Array) => Promise<string>): Promise<string> {
      const phrase = newRecoveryPhrase();
      const seed = await seedOfPhrase(phrase);
      const address = await keep(walletKeyAt(seed, 0));
      await backend.set(nextIndexAccount(address), '1');
      await backend.set(phraseAccount(address), phrase);
      seeds.set(address, Promise.resolve(seed));
      return address;
    },

    /**
     * The key of the treasury's next agent wallet, or null when the treasury has no phrase (a data
     * dir made before phrases: its agents keep random keys, and its backup is the encrypted file).
     */
    nextAgentKey(treasury: string): Promise<Uint8Array | null> {
      const next = queue.then(async () => {
        const seed = await seedOf(treasury);
        if (seed === null) return null;
        const stored = await backend.get(nextIndexAccount(treasury));
        // Guessing would hand a new agent a wallet an older one may hold: refuse instead.
        if (stored === null || !/^[1-9][0-9]{0,9}$/.test(stored))
          throw new Error(`the next wallet index of treasury ${treasury} is missing`);
        const index = Number(stored);
        await backend.set(nextIndexAccount(treasury), String(index + 1));
        return walletKeyAt(seed, index);
      });
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
