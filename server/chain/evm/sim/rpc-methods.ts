/**
 * What the embedded EVM chain answers from outside Coffer's own code (viem, an x402 facilitator, a
 * wallet on this machine): Ethereum's reads, and `eth_sendRawTransaction` for a transaction its
 * sender signed. Nothing that signs for someone (`eth_sendTransaction`: the node holds no key, but the
 * minter's account is impersonated), mints, or sets the chain's state or time (`hardhat_*`, `evm_*`):
 * those are the chain's own, through its journal.
 */
export const EVM_READ_METHODS: ReadonlySet<string> = new Set([
  'eth_chainId',
  'net_version',
  'web3_clientVersion',
  'eth_syncing',
  'eth_accounts',
  'eth_blockNumber',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_blobBaseFee',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionReceipt',
  'eth_getLogs',
]);

export const EVM_SEND_RAW_TRANSACTION = 'eth_sendRawTransaction';
