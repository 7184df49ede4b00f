import type { LocalAccount } from 'viem';
import type { KeyVault } from '../../core/ports/keys.js';

/**
 * What the EVM rail signs with: besides the key vault, the account that signs as an EVM address
 * (EIP-712 authorizations, transactions), in memory. The key vault (server/keys) answers this port;
 * no chain adapter imports it.
 */
export interface EvmSigners extends KeyVault {
  evmAccount(address: string): Promise<LocalAccount>;
}
