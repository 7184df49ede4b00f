import { randomBytes } from 'node:crypto';
import { bytesToHex, getAddress, isAddress, type Address, type Hex, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { signingInProcess, type EvmSigningThread } from './evm-signing-thread.js';
import type { SecretBackend } from './secret-backend.js';
import { WalletKeyMissing } from '../core/ports/keys.js';

/** An EVM account's private key (0x and 64 hex digits), filed under its checksummed address. */
export const evmKeyAccount = (address: string): string => `evm-wallet:${address}`;
/** Which EVM account goes with a wallet (named by its Solana address): the account's address. */
const evmOfWalletAccount = (wallet: string): string => `evm-wallet-of:${wallet}`;

const PRIVATE_KEY = /^0x[0-9a-f]{64}$/;

/**
 * The EVM account of each wallet: the key the recovery phrase derives at the wallet's own index
 * (recovery-phrase.ts), or, for a wallet the phrase does not derive (a data dir made before phrases),
 * a random key, which the encrypted backup carries. Filed once, with the wallet's pointer to it, and
 * never changed: the account's address is where its USDC is.
 *
 * Security invariant: the keys leave this module only as viem accounts, which sign in memory, in
 * this process (on its signing thread, evm-signing-thread.ts).
 */
export function createEvmWallets(backend: SecretBackend, signing: EvmSigningThread = signingInProcess) {
  const accounts = new Map<string, Promise<LocalAccount>>();
  const pending = new Map<string, Promise<Address>>();

  const accountOfKey = (key: Hex, filedAs?: string): LocalAccount => {
    if (!PRIVATE_KEY.test(key)) throw new Error(`the EVM key filed for ${filedAs ?? 'a wallet'} is not a private key`);
    const account = privateKeyToAccount(key);
    if (filedAs !== undefined && account.address !== filedAs) throw new Error(`the EVM key filed for ${filedAs} is not its key`);
    return signing.account(account, key);
  };

  /** Files `key` as `wallet`'s EVM account (before the pointer, so a pointer always finds a key). */
  const file = async (wallet: string, key: Uint8Array): Promise<Address> => {
    const hex = bytesToHex(key);
    key.fill(0);
    const account = accountOfKey(hex);
    await backend.set(evmKeyAccount(account.address), hex);
    await backend.set(evmOfWalletAccount(wallet), account.address);
    accounts.set(account.address, Promise.resolve(account));
    return account.address;
  };

  const filedFor = async (wallet: string): Promise<Address | null> => {
    const filed = await backend.get(evmOfWalletAccount(wallet));
    if (filed === null) return null;
    if (!isAddress(filed, { strict: true })) throw new Error(`the EVM account filed for wallet ${wallet} is not an address`);
    return filed;
  };

  return {
    file,

    /**
     * The EVM account of `wallet`: the one filed, else `derive`'s key (the phrase's at the wallet's
     * index, null when the phrase does not derive it) or a random one, filed now. One at a time per
     * wallet, so two callers never file two accounts.
     */
    of(wallet: string, derive: () => Promise<Uint8Array | null>): Promise<Address> {
      let found = pending.get(wallet);
      if (found === undefined) {
        found = (async () => (await filedFor(wallet)) ?? file(wallet, (await derive()) ?? new Uint8Array(randomBytes(32))))();
        pending.set(wallet, found);
        void found.finally(() => pending.delete(wallet)).catch(() => undefined);
      }
      return found;
    },

    /** The account that signs as `address` (its key read once, then kept). */
    account(address: string): Promise<LocalAccount> {
      let account = accounts.get(address);
      if (account === undefined) {
        account = backend.get(evmKeyAccount(address)).then((key) => {
          if (key === null) throw new WalletKeyMissing(address);
          return accountOfKey(key as Hex, address);
        });
        accounts.set(address, account);
        account.catch(() => accounts.delete(address));
      }
      return account;
    },

    /**
     * The entries that restore the EVM accounts of `wallets`, by their names in the key store, and the
     * accounts whose key this key store no longer has: left out (a pointer without its key is refused
     * on restore) and named, as a Solana wallet without its key is, so one lost key stops no backup.
     */
    async export(wallets: Iterable<string>): Promise<{ entries: Record<string, string>; withoutKey: Address[] }> {
      const entries: Record<string, string> = {};
      const withoutKey: Address[] = [];
      for (const wallet of wallets) {
        const address = await filedFor(wallet);
        if (address === null) continue;
        const key = await backend.get(evmKeyAccount(address));
        if (key === null) {
          withoutKey.push(address);
          continue;
        }
        entries[evmOfWalletAccount(wallet)] = address;
        entries[evmKeyAccount(address)] = key;
      }
      return { entries, withoutKey };
    },

    /**
     * Checks the EVM entries read from a backup (each key must be its address's; each pointer must name
     * an account whose key comes with it) and answers the entries to file, keys first.
     */
    check(entries: Record<string, string>): [string, string][] {
      const keys: [string, string][] = [];
      const pointers: [string, string][] = [];
      for (const [name, value] of Object.entries(entries)) {
        if (name.startsWith(evmKeyAccount(''))) {
          accountOfKey(value as Hex, name.slice(evmKeyAccount('').length));
          keys.push([name, value]);
        } else {
          if (!isAddress(value, { strict: true }) || getAddress(value) !== value)
            throw new Error(`the EVM account filed as ${name} is not an address`);
          if (entries[evmKeyAccount(value)] === undefined) throw new Error(`the backup names EVM account ${value} without its key`);
          pointers.push([name, value]);
        }
      }
      return [...keys, ...pointers];
    },
  };
}

/** Whether a key store entry's name is one of the EVM accounts'. */
export const isEvmEntry = (name: string): boolean => name.startsWith(evmKeyAccount('')) || name.startsWith(evmOfWalletAccount(''));
