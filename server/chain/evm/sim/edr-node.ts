/**
 * The EVM that runs Coffer's embedded Base-like chain: EDR (@nomicfoundation/edr, Hardhat's Rust
 * runtime), in this process, answering Ethereum JSON-RPC as a node does. It is a real EVM executing
 * real bytecode; what is Coffer's is the configuration below and the error shape.
 *
 * Pinned to 0.13.0, the last EDR whose platform packages declare Node 20: npm leaves out an optional
 * dependency whose `engines` the running Node does not meet, so a later EDR installs without its
 * native binary on Node 20.
 */
import {
  ContractDecoder,
  EdrContext,
  L1_CHAIN_TYPE,
  MineOrdering,
  PRAGUE,
  l1GenesisState,
  l1HardforkFromString,
  l1ProviderFactory,
  type Provider,
} from '@nomicfoundation/edr';
import { hexToBytes, type Address, type Hex } from 'viem';

/** A JSON-RPC error as a node answers it; a revert is geth's `{code: 3, message: 'execution reverted: …', data}`. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

/** A node's JSON-RPC as one call (EIP-1193's `request`): the result, or a JsonRpcError. */
export interface EvmNode {
  request(method: string, params?: readonly unknown[]): Promise<unknown>;
}

export interface EdrNodeConfig {
  chainId: number;
  /** The genesis block's time (seconds): replaying a journal from it gives the same blocks. */
  genesisTime: number;
  /** Accounts that hold ETH from genesis. */
  funded: { address: Address; wei: bigint }[];
}

/** Prague: what Base runs (its Isthmus upgrade), and what the token was compiled for (Cancun and later). */
const HARDFORK = PRAGUE;
/**
 * Gas limits: a block holds about 1,800 USDC transfers; a call without a gas limit gets 16,777,216, the
 * most one transaction may use from Osaka on (EIP-7825), so estimates never ask for more. What comes
 * from outside asking more is refused before it runs (gas-cap.ts); the node itself is not capped, so
 * that a journal written before the cap replays as it ran.
 */
const BLOCK_GAS_LIMIT = 60_000_000n;
export const CALL_GAS_LIMIT = 16_777_216n;

let context: Promise<EdrContext> | null = null;
/** EDR's context is made once per process, with the L1 chain type registered. */
function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const made = new EdrContext();
    await made.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory());
    return made;
  })();
  return context;
}

export async function openEdrNode(config: EdrNodeConfig): Promise<EvmNode> {
  const hardfork = l1HardforkFromString(HARDFORK);
  const provider: Provider = await (
    await edrContext()
  ).createProvider(
    L1_CHAIN_TYPE,
    {
      chainId: BigInt(config.chainId),
      networkId: BigInt(config.chainId),
      hardfork: HARDFORK,
      genesisState: [
        ...l1GenesisState(hardfork),
        ...config.funded.map(({ address, wei }) => ({ address: hexToBytes(address), balance: wei })),
      ],
      ownedAccounts: [],
      // One block per transaction, mined as it arrives: a transaction's receipt exists when its send answers.
      mining: { autoMine: true, memPool: { order: MineOrdering.Fifo } },
      network: { genesisBlockGasLimit: BLOCK_GAS_LIMIT, genesisBlockTime: BigInt(config.genesisTime) },
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      coinbase: new Uint8Array(20),
      precompileOverrides: [],
      observability: {},
      allowUnlimitedContractSize: false,
      defaultTransactionGasLimit: CALL_GAS_LIMIT,
      // A reverting eth_call is an error, as on any node (false would answer a refused transfer as fine).
      bailOnCallFailure: true,
      bailOnTransactionFailure: false,
      // Blocks take the time they are given (the wall clock, or the journal's), not one second more each.
      allowBlocksWithSameTimestamp: true,
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new ContractDecoder(),
  );
  let id = 0;
  return {
    async request(method, params = []) {
      const response = await provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
      const answer = (typeof response.data === 'string' ? JSON.parse(response.data) : response.data) as {
        result?: unknown;
        error?: { code: number; message: string; data?: unknown };
      };
      if (answer.error !== undefined) throw asNodeError(answer.error);
      return answer.result;
    },
  };
}

/**
 * EDR answers a revert as `-32603`/`-32000` with `data: {message, data: '0x08c379a0…'}`; geth, Base's
 * nodes and viem's decoding expect `{code: 3, message: 'execution reverted: <reason>', data: '0x…'}`.
 */
function asNodeError(error: { code: number; message: string; data?: unknown }): JsonRpcError {
  const data = error.data as { data?: unknown } | undefined;
  const revertData = typeof data?.data === 'string' && data.data.startsWith('0x') ? (data.data as Hex) : undefined;
  if (revertData !== undefined || /revert/i.test(error.message)) {
    const reason = /reverted with reason string '(.*)'$/s.exec(error.message)?.[1];
    return new JsonRpcError(3, reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, revertData ?? '0x');
  }
  return new JsonRpcError(error.code, error.message, error.data);
}
