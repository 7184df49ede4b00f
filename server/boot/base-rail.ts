/**
 * Which Base network a data dir opens beside its Solana one, and the rail on it: the embedded EVM
 * chain with `sim`; Base Sepolia with `devnet`, Base with `mainnet` (their public RPC, or the one
 * COFFER_BASE_RPC names, which must serve that chain); with a Solana RPC of its own, Base only where
 * COFFER_BASE_RPC names an EVM RPC (its chain's USDC in COFFER_BASE_USDC when it is not Base's).
 * COFFER_BASE_RPC=off turns the rail off. A data dir stays on the Base network it was made on.
 */
import type { SqliteDatabase } from '../store/sqlite-driver.js';
import type { WalletKeyVault } from '../keys/key-vault.js';
import type { Clock } from '../core/ports/keys.js';
import type { MetaStore } from '../core/ports/store.js';
import type { OpenedEvmRail } from '../chain/evm/rail.js';
import { baseNetworkOf } from '../chain/evm/networks.js';

const BASE_NETWORK_META = 'base_network';

export interface BaseRailOptions {
  /** An EVM JSON-RPC URL, or `off`; left out, the network's own. */
  baseRpc?: string;
  /** The USDC address on an EVM chain that is not Base's. */
  baseUsdc?: string;
}

export async function openBaseRail(
  solana: { sim: boolean; network: string },
  options: BaseRailOptions,
  deps: { db: SqliteDatabase; store: MetaStore; vault: WalletKeyVault; clock: Clock; log: (message: string) => void; dataDir: string },
): Promise<OpenedEvmRail | null> {
  if (options.baseRpc === 'off') return null;
  const recorded = deps.store.getMeta(BASE_NETWORK_META);
  const rail = await railFor(solana, options, recorded, deps);
  if (rail === null) return null;
  const network = `${rail.chain.network}:${rail.chain.chainId ?? 0}`;
  if (recorded !== null && recorded !== network) {
    throw new Error(
      `the data dir ${deps.dataDir} holds a treasury on ${recorded.split(':')[0]} for the Base rail, not ${rail.chain.network}`,
    );
  }
  deps.store.setMeta(BASE_NETWORK_META, network);
  return rail;
}

/**
 * The rail. A COFFER_BASE_RPC that does not answer at start does not keep Coffer (Solana's rail, the
 * owner's brake) from starting where the chain it must serve is known: the Solana network's Base, or
 * the one this data dir was opened on (`recorded`). Its chain is checked once it answers.
 */
async function railFor(
  solana: { sim: boolean; network: string },
  { baseRpc, baseUsdc }: BaseRailOptions,
  recorded: string | null,
  deps: { db: SqliteDatabase; vault: WalletKeyVault; clock: Clock; log: (message: string) => void },
): Promise<OpenedEvmRail | null> {
  if (solana.sim && baseRpc === undefined) return openBaseSim(deps);
  const named = baseNetworkOf(solana.network);
  // The EVM rail's module (viem's clients) is loaded only where the rail is on.
  const { openNamedEvmRail, openRemoteEvmRail } = await import('../chain/evm/rail.js');
  if (baseRpc === undefined) return named === null ? null : openNamedEvmRail(named, deps);
  const mustServe = named ?? (recorded === null ? null : { name: recorded.split(':')[0]!, chainId: Number(recorded.split(':')[1]) });
  const mismatch = (served: number) =>
    named === null
      ? `COFFER_BASE_RPC serves chain ${served}; the data dir holds a treasury on ${mustServe!.name} (chain ${mustServe!.chainId}) for the Base rail`
      : `COFFER_BASE_RPC serves chain ${served}; ${solana.network} goes with ${named.name} (chain ${named.chainId})`;
  const rail = await openRemoteEvmRail(
    baseRpc,
    baseUsdc,
    deps,
    mustServe === null
      ? undefined
      : {
          chainId: mustServe.chainId,
          mismatch,
          unanswered: (words) =>
            deps.log(`the Base rail's node (COFFER_BASE_RPC) did not answer at start (${words}): Base is refused until it answers`),
        },
  );
  if (named !== null && rail.chain.chainId !== named.chainId) throw new Error(mismatch(rail.chain.chainId!));
  return rail;
}

/**
 * The embedded EVM chain beside the Solana sim. Its runtime (EDR, a native module) is loaded only
 * here; where it cannot run, Coffer runs on Solana alone and says so.
 */
async function openBaseSim(deps: { db: SqliteDatabase; vault: WalletKeyVault; clock: Clock; log: (message: string) => void }) {
  let open: typeof import('../chain/evm/rail.js').openEmbeddedEvmRail;
  try {
    ({ openEmbeddedEvmRail: open } = await import('../chain/evm/rail.js'));
  } catch (error) {
    deps.log(
      `the Base rail's embedded chain (EDR) cannot run on ${process.platform}-${process.arch}: Coffer runs on Solana alone (${(error as Error).message})`,
    );
    return null;
  }
  return open(deps);
}
