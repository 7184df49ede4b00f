import { join } from 'node:path';
import { openCoffer } from '../boot/open-coffer.js';
import { startHttpServer } from '../boot/http-server.js';
import { assertPortFree } from '../boot/already-running.js';
import { lockDataDir } from '../boot/data-dir-lock.js';
import { existsSync } from 'node:fs';
import { announceConnection, removeConnectionFile } from '../boot/connection-file.js';
import { startChainWatch } from '../boot/chain-watch.js';
import { resolveServeConfig } from '../boot/serve-config.js';
import { STOP_SIGNALS } from '../boot/stop-signals.js';
import { railWalletsOf } from '../core/rails.js';
import { SIM_STARTING_FUNDS } from '../core/treasury/treasury.js';
import { formatUsdc } from '../wire/money.js';

/**
 * `coffer serve`: open the data dir, listen on 127.0.0.1, print the URL (first line) and a one-time
 * dashboard login URL (second line), write DIR/connection.json (0600), and stop gracefully on
 * SIGINT, SIGTERM or SIGHUP (its terminal closed): no new requests, in-flight payments finish,
 * SQLite closes, exit 0.
 */
export async function serve(
  flags: { 'data-dir'?: string; port?: string; network?: string },
  version: string,
  notice?: string,
): Promise<number> {
  const config = resolveServeConfig(flags);
  const log = (message: string) => process.stderr.write(`${message}\n`);
  // Listen for signals before anything starts: one that arrives during start-up stops the server as
  // soon as it is up, instead of killing the process halfway. Listened to for good, not once: the
  // same stop is often asked twice (Ctrl-C signals the whole process group, and `npm start` forwards
  // it to its child as well), and a signal with no listener left would kill the stop halfway.
  const early: string[] = [];
  let onSignal: (signal: string) => void = (signal) => void early.push(signal);
  for (const signal of STOP_SIGNALS) process.on(signal, () => onSignal(signal));
  // The data dir lock comes first (a second serve on it says where the first one runs), then the port.
  const coffer = await openCofferWhenPortFree(config, log);
  let server;
  try {
    server = await startHttpServer({ coffer, port: config.port, version, log });
  } catch (error) {
    await coffer.close();
    throw error;
  }
  const chainWatch = startChainWatch(coffer, log);
  const connectionFile = announceConnection(config.dataDir, server.url, coffer);

  console.log(`Coffer ${version} listening on ${server.url} (network: ${coffer.chain.network})`);
  console.log(`Dashboard login (one-time, 10 minutes): ${server.loginUrl()}`);
  if (notice) console.log(notice);
  console.log(`Treasury (owner): ${coffer.owner}${newTreasury(coffer, coffer.chain.isSim)}`);
  console.log(baseRailLine(coffer));
  if (coffer.ownerCreated) {
    console.log(
      `A new treasury. To bring back one you backed up instead: stop Coffer, move this data dir away, and run coffer restore FILE${coffer.chain.isSim ? '' : ' (or coffer restore --phrase)'}`,
    );
  }
  console.log(
    `Data dir: ${config.dataDir}; keys in ${coffer.keyStoreKind === 'keychain' ? 'the OS keychain' : join(config.dataDir, 'keys')}`,
  );
  console.log(`Connection file: ${connectionFile}`);
  const { confirmed, failed, stillPending } = coffer.reconciled;
  if (confirmed + failed + stillPending > 0) {
    console.log(
      // Every move of money is reconciled, not payments alone: said so (37 "payments" were allocations).
      `Reconciled the moves of money the last run left pending (payments, allocations, returns, test mints): ${confirmed} confirmed, ${failed} failed, ${stillPending} still pending`,
    );
  }

  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: finishing in-flight requests, then stopping`);
      void server
        .stop()
        .then(() => chainWatch.stop())
        .then(() => coffer.close())
        .then(() => {
          removeConnectionFile(connectionFile, process.pid);
          log('stopped');
          resolve(0);
        });
    };
    onSignal = stop;
    if (early[0]) stop(early[0]);
  });
}

/**
 * Opens the data dir only once the port is known to be free, so a start that cannot listen creates
 * nothing. A data dir already served by another process is said first, with where it runs.
 */
async function openCofferWhenPortFree(config: ReturnType<typeof resolveServeConfig>, log: (message: string) => void) {
  // Only an existing data dir can be in use; its lock (not a connection file, whose pid may be
  // another process's by now) says whether it is.
  if (existsSync(config.dataDir)) lockDataDir(config.dataDir).release();
  await assertPortFree(config.port, config.dataDir);
  return openCoffer({ ...config, log });
}

/** Where the treasury takes USDC on Base, on which network and chain; or that the Base rail is off. */
function baseRailLine(coffer: Awaited<ReturnType<typeof openCoffer>>): string {
  const base = coffer.base?.chain ?? null;
  if (base === null) return 'Base rail: off (COFFER_BASE_RPC)';
  // Filed as the treasury opens (treasury.ts); "not filed" would be a data dir that failed to.
  const address = railWalletsOf(coffer.engine.ctx, coffer.owner).base ?? 'its account is not filed';
  return `Treasury on Base (${base.network}, chain ${base.chainId ?? 'unknown'}): ${address}${newTreasury(coffer, base.isSim)}`;
}

/**
 * " (new)" after a treasury made by this start; on a sim chain, with the test money it starts with
 * (treasury.ts), so the owner knows what there is to give agents and that none of it is real.
 */
function newTreasury(coffer: Awaited<ReturnType<typeof openCoffer>>, isSim: boolean): string {
  if (!coffer.ownerCreated) return '';
  return isSim ? ` (new: ${formatUsdc(SIM_STARTING_FUNDS)} test USDC)` : ' (new)';
}
