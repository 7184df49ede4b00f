import type { LocalAccount } from 'viem';

/**
 * What the EVM rail signs with, answered by the key vault (server/keys): an account that signs as an
 * EVM address (EIP-712 authorizations, transactions) in memory. No chain adapter imports the vault.
 */
export interface EvmSigners {
  evmAccount(address: string): Promise<LocalAccount>;
}
