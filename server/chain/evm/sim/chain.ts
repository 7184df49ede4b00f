/**
 * Coffer's embedded EVM chain: the EVM rail's offline network, as the sim is Solana's. A real EVM
 * (EDR, edr-node.ts) in this process, running the real test USDC contract (token/TestUsdc.sol), with
 * a chain id of its own so nothing signed with its test money is worth anything on a real chain. Its
 * state lives in the data dir's database as a journal (journal.ts): each request that changes the
 * chain is written and committed before it runs, in the order it runs, with its block's time, and
 * the chain is that journal replayed when the data dir opens. So a crash at any point keeps every
 * transaction anyone was told of, and nothing more than a request that then runs again on replay.
 */
import { defineChain, encodeDeployData, encodeFunctionData, getAddress, getContractAddress, type Address, type Hash, type Hex } from 'viem';
import type { SqliteDatabase } from '../../../store/sqlite-driver.js';
import type { Clock } from '../../../core/ports/keys.js';
import { TEST_USDC_ABI, TEST_USDC_BYTECODE } from '../token/test-usdc-artifact.js';
import { JsonRpcError, openEdrNode, type EvmNode } from './edr-node.js';
import { createEvmJournal, type EvmJournal } from './journal.js';
import { EVM_READ_METHODS, EVM_SEND_RAW_TRANSACTION } from './rpc-methods.js';
import { logFilterWithinHead } from './log-range.js';
import { gasCapRefusal } from './gas-cap.js';

/** 0xc0ffe: never Base's 8453 or Base Sepolia's 84532. A Coffer's own embedded chain has it. */
export const EMBEDDED_EVM_CHAIN_ID = 790_526;
/** Where a chain keeps the id it was made with (table meta, beside its journal). */
const CHAIN_ID_KEY = 'evm.chainId';
/**
 * The minter: an address no key opens (the node impersonates it), holding the chain's test ETH from
 * genesis and the only minter of its test USDC. (The faucet the owner draws on is a keyed wallet it
 * funds: test-funds.ts.)
 */
export const EMBEDDED_EVM_MINTER: Address = getAddress('0x000000000000000000000000000000000000c0fe');
/** The test USDC's address: the minter's first contract. */
export const EMBEDDED_EVM_USDC: Address = getContractAddress({ from: EMBEDDED_EVM_MINTER, nonce: 0n });
/** The chain as viem names one (its RPC is the data dir's, so none is named here). */
export const EMBEDDED_EVM_VIEM_CHAIN = defineChain({
  id: EMBEDDED_EVM_CHAIN_ID,
  name: 'Coffer sim (test money)',
  nativeCurrency: { name: 'Test Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [] } },
  testnet: true,
});
/** Its name and symbol, as Base Sepolia's USDC's (its EIP-712 version is USDC's "2"). */
const TOKEN_NAME = 'USDC';
const GENESIS_ETH = 10n ** 30n;

export interface EmbeddedEvm {
  readonly chainId: number;
  readonly usdc: Address;
  /**
   * Ethereum JSON-RPC as a node answers it, for viem (custom transport) and the HTTP route: reads,
   * and a signed transaction sent through the journal. Any other method is refused (-32601).
   */
  request(method: string, params?: readonly unknown[]): Promise<unknown>;
  /** The minter mints test USDC (micro-USDC) to a wallet. */
  mintTestUsdc(to: Address, amount: bigint): Promise<Hash>;
  /** The minter sends test ETH (wei) to a wallet, for gas. */
  sendTestEth(to: Address, wei: bigint): Promise<Hash>;
  /**
   * Mines an empty block at the clock's time, after every request already written: the chain mines
   * only when a transaction comes, so its time stands still between them.
   */
  mineToNow(): Promise<void>;
}

/**
 * Opens the chain journaled in `db`, or makes it with `chainId` (the embedded id unless another is
 * asked). A chain keeps the id it was made with, whatever a later opening asks: its signed
 * transactions (EIP-155) replay on that id alone.
 */
export async function openEmbeddedEvm(db: SqliteDatabase, clock: Clock, options: { chainId?: number } = {}): Promise<EmbeddedEvm> {
  const journal = createEvmJournal(db);
  const chainId = chainIdOf(db, journal, options.chainId ?? EMBEDDED_EVM_CHAIN_ID);
  const nowSeconds = () => Math.floor(clock.now() / 1000);
  // A replay starts the chain at its first entry's time, so a new chain's genesis and first entry
  // (the token's deploy) take one reading of the clock: two readings a second apart would give the
  // reopened chain another genesis block, and every block another hash.
  const genesisTime = journal.firstTime() ?? nowSeconds();
  const node = await openEdrNode({
    chainId,
    genesisTime,
    funded: [{ address: EMBEDDED_EVM_MINTER, wei: GENESIS_ETH }],
  });
  await node.request('hardhat_impersonateAccount', [EMBEDDED_EVM_MINTER]);
  let lastAt = await replay(node, journal);
  if (journal.firstTime() === null) {
    const data = encodeDeployData({
      abi: TEST_USDC_ABI,
      bytecode: TEST_USDC_BYTECODE,
      args: [TOKEN_NAME, TOKEN_NAME, EMBEDDED_EVM_MINTER],
    });
    const at = genesisTime;
    const seq = journal.append({ at, method: 'eth_sendTransaction', params: [{ from: EMBEDDED_EVM_MINTER, data }] });
    lastAt = at;
    await run(node, journal, { seq, at, method: 'eth_sendTransaction', params: [{ from: EMBEDDED_EVM_MINTER, data }] });
  }
  if ((await node.request('eth_getCode', [EMBEDDED_EVM_USDC, 'latest'])) === '0x') {
    throw new Error(`the embedded EVM chain's journal does not deploy its test USDC at ${EMBEDDED_EVM_USDC}`);
  }

  // Writes run one at a time, in the journal's order; reads go straight to the node.
  let queue: Promise<unknown> = Promise.resolve();
  const write = (method: string, params: readonly unknown[]): Promise<unknown> => {
    const next = queue.then(() => {
      // A block's time never goes back, whatever the wall clock does.
      const at = Math.max(nowSeconds(), lastAt);
      lastAt = at;
      return run(node, journal, { seq: journal.append({ at, method, params }), at, method, params });
    });
    queue = next.catch(() => undefined);
    return next;
  };
  const fromMinter = async (to: Address, value: bigint, data?: Hex) =>
    (await write('eth_sendTransaction', [
      { from: EMBEDDED_EVM_MINTER, to, value: `0x${value.toString(16)}`, ...(data && { data }) },
    ])) as Hash;

  return {
    chainId,
    usdc: EMBEDDED_EVM_USDC,
    request: async (method, params = []) => {
      const tooMuchGas = gasCapRefusal(method, params);
      if (tooMuchGas !== null) throw tooMuchGas;
      if (method === EVM_SEND_RAW_TRANSACTION) return write(method, params);
      if (method === 'eth_getLogs') {
        const within = await logFilterWithinHead(params, async () => BigInt((await node.request('eth_blockNumber')) as string));
        return within === null ? [] : node.request(method, within);
      }
      if (EVM_READ_METHODS.has(method)) return node.request(method, params);
      return Promise.reject(new JsonRpcError(-32601, `the method ${method} is not available on Coffer's embedded chain`));
    },
    mintTestUsdc: (to, amount) =>
      fromMinter(EMBEDDED_EVM_USDC, 0n, encodeFunctionData({ abi: TEST_USDC_ABI, functionName: 'mint', args: [to, amount] })),
    sendTestEth: (to, wei) => fromMinter(to, wei),
    mineToNow: async () => {
      await write('evm_mine', []);
    },
  };
}

/**
 * One journal entry run at its block's time. A request the node refuses changed nothing, so it
 * leaves the journal (on replay too: one whose removal a crash cut short is refused the same way).
 */
async function run(node: EvmNode, journal: EvmJournal, entry: { seq: number; at: number; method: string; params: readonly unknown[] }) {
  await node.request('evm_setNextBlockTimestamp', [`0x${entry.at.toString(16)}`]);
  try {
    return await node.request(entry.method, entry.params);
  } catch (error) {
    journal.remove(entry.seq);
    throw error;
  }
}

/** The id the chain was made with; a new chain's (`asked`) is kept before its first entry is written. */
function chainIdOf(db: SqliteDatabase, journal: EvmJournal, asked: number): number {
  const kept = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(CHAIN_ID_KEY) as string | undefined;
  if (kept !== undefined) return Number(kept);
  // A chain journaled before the id was kept was made with the embedded id, the only one there was.
  const id = journal.firstTime() === null ? asked : EMBEDDED_EVM_CHAIN_ID;
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(CHAIN_ID_KEY, String(id));
  return id;
}

/** The journal run again from its first entry: the chain as it was. Answers the last block's time. */
async function replay(node: EvmNode, journal: EvmJournal): Promise<number> {
  let lastAt = 0;
  for (const entry of journal.entries()) {
    lastAt = entry.at;
    await run(node, journal, entry).catch(() => undefined);
  }
  return lastAt;
}
