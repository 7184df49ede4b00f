import { basename, dirname, join } from 'node:path';
import { startBackgroundCheckpoints, type BackgroundCheckpoints } from '../store/background-checkpoints.js';
import { openDatabase, setDurability } from '../store/database.js';
import type { SqliteDatabase } from '../store/sqlite-driver.js';
import { createSqliteStore } from '../store/sqlite-store.js';
import { catalogFor, loadCatalog, payToAddresses, readCatalog } from '../store/catalog.js';
import { openSecretBackend, type KeyStorePreference } from '../keys/open-secret-backend.js';
import { createKeyVault, type WalletKeyVault } from '../keys/key-vault.js';
import type { RpcChain } from '../chain/solana/cluster/chain.js';
import { chooseSolanaNetwork, openSolanaRail } from '../chain/solana/rail.js';
import type { EmbeddedChain } from '../chain/rail.js';
import type { OpenedEvmRail } from '../chain/evm/rail.js';
import { openBaseRail, type BaseRailOptions } from './base-rail.js';
import { NAMED_RPC_NETWORKS, x402Networks, type NetworkChoice } from '../chain/solana/networks.js';
import { createEngine, type Engine } from '../core/engine.js';
import { DEMO_LOCALNET, DEMO_MARKER_FILE } from '../wire/network-words.js';
import type { Chain } from '../core/ports/chain.js';
import type { X402Buyer } from '../core/ports/x402.js';
import { systemClock, type Clock } from '../core/ports/keys.js';
import { createOpenAiImagesProvider } from '../providers/openai-images.js';
import { lockDataDir } from './data-dir-lock.js';
import { EventBus } from '../core/events.js';
import { settleActiveTransfers } from '../core/transfers/lifecycle.js';
import { existsSync, mkdirSync } from 'node:fs';
import type { ReconcileReport } from '../core/transfers/reconcile.js';
import type { McpLaunch } from '../wire/mcp-config.js';
import { cofferMcpLaunch } from './cli-invocation.js';
import { demoApiUrl } from './demo-api-presence.js';
import { createBazaarReader } from '../x402/bazaar-reader.js';
import { createBackupWriter, removeLeftoverScratch } from '../backup/backup-writer.js';
import { packageVersion } from '../package/package-files.js';
import { startMinuteTimer } from './minute-timer.js';
import { startPolicyReplays, type PolicyReplayThread } from './policy-replays.js';
import { createEvmSigningThread } from '../keys/evm-signing-thread.js';

export interface OpenOptions extends BaseRailOptions {
  dataDir: string;
  /** sim, devnet, mainnet or an RPC URL; left out, the data dir's own network (sim for a new one). */
  network?: string;
  keyStore: KeyStorePreference;
  log: (message: string) => void;
  clock?: Clock;
  usdcMint?: string;
  /** An OpenAI-compatible images API for generation; without one, generate answers 503. */
  imageProviderUrl?: string;
  imageProviderKey?: string;
  /** How MCP hosts launch the tool server; by default this package's `coffer` script under this Node. */
  mcpLaunch?: McpLaunch;
  /**
   * A new data dir's treasury restored from its recovery phrase, with the derivation indexes of the
   * agent wallets found in use (restore-phrase.ts), instead of a new treasury.
   */
  recover?: { phrase: string; agents: number[] };
}

export interface OpenedCoffer {
  engine: Engine;
  db: SqliteDatabase;
  chain: Chain;
  /** The rail's embedded chain (sim only), which the HTTP server also serves (its JSON-RPC, its test images). */
  embedded: EmbeddedChain | null;
  /** The Base rail, where it is open (sim: the embedded EVM chain), and what it serves beside /v1. */
  base: OpenedEvmRail | null;
  owner: string;
  ownerKey: string;
  ownerCreated: boolean;
  /** The data dir's single-process lock; close() releases it. */
  dataDirLock: { release(): void };
  keyStoreKind: 'keychain' | 'file';
  reconciled: ReconcileReport;
  /** Set once the HTTP server listens; used in mcpConfig.env. */
  setBaseUrl(url: string): void;
  close(): Promise<void>;
}

/**
 * The x402 buyer, where x402 names a network Coffer pays on: Solana's on devnet and mainnet, Base's
 * wherever the Base rail is open. Its packages are loaded only where they can pay.
 */
async function x402BuyerFor(
  choice: NetworkChoice,
  networkName: string,
  vault: WalletKeyVault,
  chain: RpcChain | null,
  base: OpenedEvmRail | null,
): Promise<X402Buyer | null> {
  const solNames = x402Networks(networkName);
  const solana = choice.kind === 'rpc' && solNames !== null && chain !== null ? { rpcUrl: choice.network.rpcUrl, chain } : null;
  if (solana === null && base === null) return null;
  const { createX402Buyer } = await import('../x402/buyer/x402-buyer.js');
  const sol =
    solana === null || solNames === null
      ? null
      : (await import('../x402/buyer/solana-payment.js')).solanaX402Payments({
          rpcUrl: solana.rpcUrl,
          vault,
          networks: solNames,
          latestBlockhash: () => solana.chain.latestBlockhash(),
        });
  const evm =
    base === null
      ? null
      : (await import('../x402/buyer/base-payment.js')).baseX402Payments({
          chain: { chainId: base.chain.chainId, usdc: base.chain.usdc, domain: () => base.chain.domain() },
          signers: vault,
        });
  return createX402Buyer({ vault, evm: base === null ? null : vault, sol, base: evm });
}

/** The network a data dir was made for, to reopen it on when none is asked for; sim for a new one. */
function networkToReopen(recorded: string | null, dataDir: string): string {
  if (recorded === null || recorded === 'sim' || Object.hasOwn(NAMED_RPC_NETWORKS, recorded)) return recorded ?? 'sim';
  if (recorded === DEMO_LOCALNET) throw new Error(demoDataDir(dataDir));
  throw new Error(`the data dir ${dataDir} holds a ${recorded} treasury: start it with --network and that cluster's RPC URL`);
}

/**
 * Said of a data dir `coffer demo-x402` made, started any other way: its money is test money, on its
 * cluster only. The demo's folder is named only where the data dir lies in one (restored elsewhere, its
 * parent is no demo's: helper 196 was sent to start a demo in the folder above, a repository).
 */
export function demoDataDir(dataDir: string): string {
  const said = `the data dir ${dataDir} holds the test money of coffer demo-x402 (a local cluster, not devnet)`;
  const folder = dirname(dataDir);
  if (basename(dataDir) === 'coffer' && existsSync(join(folder, DEMO_MARKER_FILE))) {
    return `${said}: start it again with coffer demo-x402 --data-dir ${folder}`;
  }
  return (
    `${said}, outside a demo's folder (a demo's Coffer is DIR/coffer, beside DIR/${DEMO_MARKER_FILE}): its money is on the demo's ` +
    "local chains, reached only while that demo runs; start it with --network and the demo cluster's RPC URL, and COFFER_BASE_RPC and COFFER_BASE_USDC for its EVM chain"
  );
}

/**
 * The network a data dir is opened on (a name or an RPC URL), as its rail reads it: the choice that
 * opens the rail, and the name the data dir records. One rail today, Solana's.
 */
export async function chooseNetwork(asked: string, usdcMint?: string): Promise<{ choice: NetworkChoice; name: string }> {
  return chooseSolanaNetwork(asked, usdcMint);
}

/**
 * Opens a data dir: SQLite, the catalog, the key store, the chain, the engine; reconciles payments
 * left pending by a previous run before anything else can happen, and makes sure the owner exists.
 */
export async function openCoffer(options: OpenOptions): Promise<OpenedCoffer> {
  const clock = options.clock ?? systemClock;
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const dataDirLock = lockDataDir(options.dataDir);
  let db: SqliteDatabase | undefined;
  let checkpoints: BackgroundCheckpoints | undefined;
  let replays: PolicyReplayThread | undefined;
  // EVM signatures on a worker of their own, off the thread that serves payments.
  const evmSigning = createEvmSigningThread(options.log);
  try {
    db = openDatabase(join(options.dataDir, 'coffer.db'), 'full');
    checkpoints = startBackgroundCheckpoints(db);
    const store = createSqliteStore(db);
    // What-ifs replay agents' histories on a worker of their own, off the thread that serves payments.
    replays = startPolicyReplays(db.name, store, options.log);
    const recorded = store.getMeta('network');
    const { choice, name: networkName } = await chooseNetwork(
      options.network ?? networkToReopen(recorded, options.dataDir),
      options.usdcMint,
    );
    if (recorded === DEMO_LOCALNET && networkName !== DEMO_LOCALNET) throw new Error(demoDataDir(options.dataDir));
    if (recorded !== null && recorded !== networkName) {
      throw new Error(
        `the data dir ${options.dataDir} holds a ${recorded} treasury; start with --network ${recorded} or use another --data-dir`,
      );
    }
    const catalog = catalogFor(readCatalog(), choice.kind === 'sim' ? 'sim' : choice.network.name);

    const backend = await openSecretBackend(options.dataDir, options.keyStore, options.log);
    const vault = createKeyVault(backend, evmSigning);
    const rail = await openSolanaRail(choice, { db, vault, clock });
    const { chain, embedded } = rail;
    const base = await openBaseRail({ sim: choice.kind === 'sim', network: networkName }, options, {
      db,
      store,
      vault,
      clock,
      log: options.log,
      dataDir: options.dataDir,
    });
    // The embedded chains' state lives in this same file and rolls back with the ledger: no fsync
    // per commit is needed there (see openDatabase). Security invariant: a rail whose money lives
    // elsewhere (the Base rail on a node of its own beside the sim, COFFER_BASE_RPC) keeps each
    // commit fsynced before the payment it records leaves; else a power cut could lose a payment
    // that ran, and its budget with it.
    if (embedded !== null && (base === null || base.chain.isSim)) setDurability(db, 'normal');
    // Recorded once the chain is open: a network that could not start does not claim the data dir.
    store.setMeta('network', networkName);

    let baseUrl = '';
    const engine = createEngine({
      events: new EventBus(() => clock.now()),
      store,
      chain,
      base: base?.chain ?? null,
      vault,
      clock,
      mcpLaunch: options.mcpLaunch ?? cofferMcpLaunch(),
      // A configured provider wins; on the sim chain test USDC buys drawn test images; on a real
      // network without a provider, generation is refused before anything is charged.
      x402: await x402BuyerFor(choice, networkName, vault, rail.cluster, base),
      imageProvider: options.imageProviderUrl
        ? createOpenAiImagesProvider(options.imageProviderUrl, options.imageProviderKey)
        : (embedded?.imageProvider(() => baseUrl) ?? null),
      baseUrl: () => baseUrl,
      demoApiUrl: () => demoApiUrl(options.dataDir),
      // Bazaar discovery reads a facilitator's list only once the owner names one (off by default).
      discovery: createBazaarReader(),
      policyReplays: replays,
      backups: createBackupWriter({ db, vault, dataDir: options.dataDir, network: networkName, version: packageVersion() }),
      log: options.log,
    });
    await removeLeftoverScratch(options.dataDir);
    const reconciled = await engine.reconcile();
    await engine.recoverApprovals();
    const openedDb = db;
    const openedReplays = replays;
    const { owner, ownerKey, created } = options.recover ? await engine.recoverTreasury(options.recover) : await engine.ensureOwner();
    // The registry names the treasury as the recipient of what Coffer provides itself: known now.
    loadCatalog(openedDb, catalog, owner);
    await embedded?.openUsdcAccounts(payToAddresses(catalog, owner));
    engine.resumeTasks({ retryFailedRefunds: true });
    const minuteTimer = startMinuteTimer(engine, options.log);
    return {
      engine,
      db: openedDb,
      chain,
      embedded,
      base,
      dataDirLock,
      owner,
      ownerKey,
      ownerCreated: created,
      keyStoreKind: backend.kind,
      reconciled,
      setBaseUrl: (url) => {
        baseUrl = url;
      },
      close: async () => {
        await minuteTimer.stop();
        engine.stopBazaar();
        // Money first: every transfer in flight settles before the ledger closes.
        await settleActiveTransfers(engine.ctx);
        await engine.settleTasks();
        await chain.close();
        await base?.chain.close();
        await openedReplays.close();
        await evmSigning.close();
        await checkpoints?.stop();
        openedDb.close();
        dataDirLock.release();
      },
    };
  } catch (error) {
    await replays?.close();
    await evmSigning.close();
    await checkpoints?.stop();
    db?.close();
    dataDirLock.release();
    throw error;
  }
}
