import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type SqliteDatabase } from '../store/database.js';
import { createSqliteStore } from '../store/sqlite-store.js';
import { createSimChainStore } from '../store/sim-chain-store.js';
import { loadCatalog, payToAddresses, readCatalog } from '../store/catalog.js';
import { openSecretBackend, type KeyStorePreference } from '../keys/open-secret-backend.js';
import { createKeyVault } from '../keys/key-vault.js';
import { SimChain } from '../chain/sim-chain.js';
import { RpcChain } from '../chain/rpc-chain.js';
import { parseNetwork } from '../chain/networks.js';
import { createEngine, type Engine } from '../core/engine.js';
import type { Chain } from '../core/ports/chain.js';
import { systemClock, type Clock } from '../core/ports/keys.js';
import { createSimImageProvider } from '../providers/sim-images.js';
import { createOpenAiImagesProvider } from '../providers/openai-images.js';
import { lockDataDir } from './data-dir-lock.js';
import { EventBus } from '../core/events.js';
import { settleActiveTransfers } from '../core/transfers.js';
import { mkdirSync } from 'node:fs';
import type { ReconcileReport } from '../core/reconcile.js';

export interface OpenOptions {
  dataDir: string;
  network: string;
  keyStore: KeyStorePreference;
  log: (message: string) => void;
  clock?: Clock;
  usdcMint?: string;
  /** An OpenAI-compatible images API for generation; without one, generate answers 503. */
  imageProviderUrl?: string;
  imageProviderKey?: string;
}

export interface OpenedCoffer {
  engine: Engine;
  db: SqliteDatabase;
  chain: Chain;
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

export const CLI_ENTRY = fileURLToPath(new URL('../cli/bin.js', import.meta.url));

/**
 * Opens a data dir: SQLite, the catalog, the key store, the chain, the engine; reconciles payments
 * left pending by a previous run before anything else can happen, and makes sure the owner exists.
 */
export async function openCoffer(options: OpenOptions): Promise<OpenedCoffer> {
  const clock = options.clock ?? systemClock;
  const choice = parseNetwork(options.network, options.usdcMint);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const dataDirLock = lockDataDir(options.dataDir);
  let db: SqliteDatabase | undefined;
  try {
    db = openDatabase(join(options.dataDir, 'coffer.db'), choice.kind === 'sim' ? 'normal' : 'full');
    const networkName = choice.kind === 'sim' ? 'sim' : choice.network.name;
    const store = createSqliteStore(db);
    const recorded = store.getMeta('network');
    if (recorded !== null && recorded !== networkName) {
      throw new Error(
        `the data dir ${options.dataDir} holds a ${recorded} treasury; start with --network ${recorded} or use another --data-dir`,
      );
    }
    store.setMeta('network', networkName);
    const catalog = readCatalog();

    const backend = await openSecretBackend(options.dataDir, options.keyStore, options.log);
    const vault = createKeyVault(backend);
    let chain: Chain;
    if (choice.kind === 'sim') {
      chain = await SimChain.open(createSimChainStore(db), vault, clock);
    } else {
      chain = new RpcChain(choice.network, vault);
    }

    let baseUrl = '';
    const engine = createEngine({
      events: new EventBus(() => clock.now()),
      store,
      chain,
      vault,
      clock,
      mcpLaunch: { command: process.execPath, args: [CLI_ENTRY, 'mcp'] },
      // A configured provider wins; on the sim chain test USDC buys drawn test images; on a real
      // network without a provider, generation is refused before anything is charged.
      imageProvider: options.imageProviderUrl
        ? createOpenAiImagesProvider(options.imageProviderUrl, options.imageProviderKey)
        : choice.kind === 'sim'
          ? createSimImageProvider(() => baseUrl)
          : null,
      baseUrl: () => baseUrl,
    });
    const reconciled = await engine.reconcile();
    engine.recoverApprovals();
    const openedDb = db;
    const { owner, ownerKey, created } = await engine.ensureOwner();
    // The registry names the treasury as the recipient of what Coffer provides itself: known now.
    loadCatalog(openedDb, catalog, owner);
    if (chain instanceof SimChain) await chain.openUsdcAccounts(payToAddresses(catalog, owner));
    engine.resumeTasks({ retryFailedRefunds: true });
    return {
      engine,
      db: openedDb,
      chain,
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
        // Money first: every transfer in flight settles before the ledger closes.
        await settleActiveTransfers(engine.ctx);
        await engine.settleTasks();
        await chain.close();
        openedDb.close();
        dataDirLock.release();
      },
    };
  } catch (error) {
    db?.close();
    dataDirLock.release();
    throw error;
  }
}
