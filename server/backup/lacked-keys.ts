import { evmKeyAccount } from '../keys/evm-wallets.js';
import { walletAccount } from '../keys/key-vault.js';
import type { LedgerWallet } from '../store/ledger-snapshot.js';
import { isEvmAddress, isSolanaAddress } from '../wire/rails.js';

/** A wallet whose key a backup file lacks: one its ledger names (a treasury's, an agent's), or one its writer named alone (a chain's own). */
export type WalletWithoutKey = Omit<LedgerWallet, 'agentId'> & { agentId: string | null; named: 'ledger' | 'writer' };

/**
 * The wallets whose key a backup file lacks, as its restore says them: whose money it cannot move.
 * Decided from the file itself, every wallet and Base account its ledger names against the keys it
 * carries, with those its writer said it left out (FILE_LACKS_KEYS_META: a chain's own wallet, which
 * no ledger row names). Security invariant: a wallet is said only where it is an address and the file
 * holds no key for it. The writer's list alone was taken: a file whose list said none, or named a
 * key the file held, or carried a terminal's escapes in it, was said as it claimed (helper 200).
 */
export function walletsWithoutKeyIn(file: {
  ledger: LedgerWallet[];
  writerSaid: string[] | null;
  secrets: Record<string, string>;
}): WalletWithoutKey[] {
  const held = (address: string, rail: LedgerWallet['rail']) =>
    Object.hasOwn(file.secrets, rail === 'sol' ? walletAccount(address) : evmKeyAccount(address));
  const lacking = new Map<string, WalletWithoutKey>();
  for (const wallet of file.ledger) {
    if (!held(wallet.address, wallet.rail) && !lacking.has(wallet.address)) lacking.set(wallet.address, { ...wallet, named: 'ledger' });
  }
  for (const address of file.writerSaid ?? []) {
    const rail = isEvmAddress(address) ? 'base' : isSolanaAddress(address) ? 'sol' : null;
    if (rail === null || held(address, rail) || lacking.has(address)) continue;
    lacking.set(address, { address, rail, agentId: null, named: 'writer' });
  }
  return [...lacking.values()];
}
