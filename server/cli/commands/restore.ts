import { resolve } from 'node:path';
import { chooseNetwork, openCoffer } from '../../boot/open-coffer.js';
import { existsSync } from 'node:fs';
import { claimEmptyDataDir, restoreBackupFile, schedulesLeftWords } from '../../backup/restore-file.js';
import type { WalletWithoutKey } from '../../backup/lacked-keys.js';
import { phraseNetwork, restoreFromPhrase } from '../../backup/restore-phrase.js';
import { refuseRestoreTarget } from '../../backup/owner-paths.js';
import { resolveServeConfig } from '../../boot/serve-config.js';
import { processIo, readSecret, type SecretIo } from '../read-secret.js';
import { heldOnEachRail } from './rail-lines.js';
import { shellCommand, shellWords } from '../../boot/cli-invocation.js';

type Io = SecretIo & { say: NodeJS.WritableStream };

/**
 * `coffer restore FILE`: a backup file into an empty data dir (this computer's or a new one's), then
 * a first open of it, which reconciles every pending move against the chain as any start does, and
 * what it holds said: the treasury and each agent's balance on each rail, what the reconciliation settled.
 */
export async function restoreFile(
  args: { file: string; dataDir?: string; network?: string },
  io: Io = { ...processIo, say: process.stdout },
): Promise<number> {
  const config = resolveServeConfig({ 'data-dir': args.dataDir, network: args.network });
  const file = resolve(args.file);
  const log = (message: string) => io.out.write(`${message}\n`);
  const asked = config.network === undefined ? null : (await chooseNetwork(config.network, config.usdcMint)).name;
  const restored = await restoreBackupFile({
    file,
    dataDir: config.dataDir,
    network: asked,
    keyStore: config.keyStore,
    log,
    passphrase: (facts) => {
      io.out.write(`${file}: a backup of a ${facts.network} treasury, made ${facts.createdAt}.\n`);
      return readSecret('Its passphrase: ', io);
    },
  });
  if (restored === null) {
    io.out.write('No passphrase given: nothing was restored.\n');
    return 1;
  }
  io.say.write(`Restored into ${config.dataDir}: the ledger and keys as of ${restored.createdAt} (${restored.network}).\n`);
  // Whose money the file cannot move (helper 200: the restore said the balances of two wallets whose
  // key the file lacked as any other's, and nothing of the keys).
  for (const wallet of restored.walletsWithoutKey) {
    io.say.write(
      `warning: the file holds no key for ${walletWithoutKeyWords(wallet)}: its money was not restored with it, and this Coffer cannot move it\n`,
    );
  }
  const scheduleLeft = schedulesLeftWords(restored.schedulesLeft);
  if (scheduleLeft !== null)
    io.say.write(`${scheduleLeft} (${shellCommand(['backup', 'schedule', '--folder', 'DIR', '--data-dir', config.dataDir])})\n`);

  // A request the old Coffer answered after the file was written waits here again: a yes to a held
  // payment given twice pays it twice on Solana (BACKUP.md), so the owner is told where to look,
  // whether or not the chain can be read now (helper 198).
  const { waitingRequests } = restored;
  if (waitingRequests > 0) {
    io.say.write(
      `${waitingRequests === 1 ? '1 request waits' : `${waitingRequests} requests wait`} for your yes, as when the file was written: deny any the old Coffer answered since (${shellCommand(['approvals', '--data-dir', config.dataDir])})\n`,
    );
  }
  // How it is started: on the network it was restored for (a cluster's URL, say), the Base rail's
  // node as it was given here (helper 198: the command printed did not start a demo's restored treasury).
  const serve = shellCommand([
    'serve',
    '--data-dir',
    config.dataDir,
    ...(config.network === undefined ? [] : ['--network', config.network]),
  ]);
  const baseAsHere = config.baseRpc === undefined ? '' : ', with COFFER_BASE_RPC (and COFFER_BASE_USDC) as set for this restore';

  let coffer;
  try {
    coffer = await openCoffer({
      dataDir: config.dataDir,
      network: config.network,
      usdcMint: config.usdcMint,
      baseRpc: config.baseRpc,
      baseUsdc: config.baseUsdc,
      keyStore: config.keyStore,
      log,
    });
  } catch (error) {
    // Its agents said from the ledger alone, as the balances would have said them.
    for (const agent of restored.agents) io.say.write(`  ${agent.agentId}: ${agent.stopped ? 'stopped' : 'active'}\n`);
    io.say.write(
      `It could not be opened to check it against the chain now (${(error as Error).message}); it is checked when it first starts.\n`,
    );
    return 0;
  }
  try {
    const owner = { kind: 'owner' as const, owner: coffer.owner };
    const overview = await coffer.engine.dashboard(owner);
    const { baseNetwork } = overview.treasury;
    io.say.write(`Treasury ${coffer.owner}: ${heldOnEachRail(overview.treasury.balances, baseNetwork)}\n`);
    for (const agent of overview.agents) {
      // As `coffer status` says it: "stopped", not the API's "suspended".
      io.say.write(
        `  ${agent.agentId}: ${heldOnEachRail(agent.balances, baseNetwork)}, ${agent.status === 'suspended' ? 'stopped' : agent.status}\n`,
      );
    }
    const { confirmed, failed, stillPending } = coffer.reconciled;
    io.say.write(
      `Checked against the chain: ${confirmed} move(s) in flight at the backup confirmed, ${failed} failed, ${stillPending} still pending.\n`,
    );
    io.say.write(`Start it with: ${serve}${baseAsHere} (or the desktop app)\n`);
  } finally {
    await coffer.close();
  }
  return 0;
}

/**
 * `coffer restore --phrase --network NET`: the treasury and every agent wallet used on that chain,
 * from the recovery phrase typed here (not echoed), into an empty data dir. What was found is said,
 * with its balances; the agents are stopped and keyless until the owner sets their policy.
 */
export async function restorePhrase(
  args: { dataDir?: string; network?: string },
  io: Io = { ...processIo, say: process.stdout },
): Promise<number> {
  const config = resolveServeConfig({ 'data-dir': args.dataDir, network: args.network });
  if (config.network === undefined) {
    throw new Error('which chain holds the wallets? add --network devnet, --network mainnet or --network <rpc-url>');
  }
  // What can be refused without the words is refused before they are asked for: the network (the
  // embedded chain, a cluster that does not answer), and the data dir (not a folder, inside another's
  // keys, in use, or holding a treasury). The restore judges the data dir again when it claims it.
  await phraseNetwork(config.network, config.usdcMint);
  await refuseRestoreTarget(config.dataDir);
  if (existsSync(config.dataDir)) (await claimEmptyDataDir(config.dataDir)).abandon();
  const phrase = await readSecret('Recovery phrase (the 24 or 12 words, separated by spaces): ', io);
  if (phrase === null) {
    io.out.write('No phrase given: nothing was restored.\n');
    return 1;
  }
  const { coffer, found } = await restoreFromPhrase({
    phrase,
    dataDir: config.dataDir,
    network: config.network,
    usdcMint: config.usdcMint,
    baseRpc: config.baseRpc,
    baseUsdc: config.baseUsdc,
    keyStore: config.keyStore,
    log: (message) => io.out.write(`${message}\n`),
  });
  try {
    const overview = await coffer.engine.dashboard({ kind: 'owner', owner: coffer.owner });
    io.say.write(
      `Restored into ${config.dataDir} from the recovery phrase (${coffer.chain.network}; ${found.scanned} wallets looked at).\n`,
    );
    const { baseNetwork } = overview.treasury;
    io.say.write(`Treasury ${coffer.owner}: ${heldOnEachRail(overview.treasury.balances, baseNetwork)}\n`);
    for (const agent of overview.agents)
      io.say.write(`  ${agent.agentId} (${agent.walletAddress}): ${heldOnEachRail(agent.balances, baseNetwork)}\n`);
    if (overview.agents.length > 0) {
      io.say.write(
        "The agents are stopped, with no key and a policy of nothing: in the dashboard set each one's policy, give it a new key and resume it, or return its money to the treasury.\n",
      );
    }
    io.say.write('Policies and history are not in the phrase: a backup file (coffer backup --out) restores those.\n');
    io.say.write(`Start it with: ${serveCommand(config)}\n`);
  } finally {
    await coffer.close();
  }
  return 0;
}

/**
 * The `coffer serve` that opens a data dir restored from the phrase: its network, and the variables
 * that named that network's USDC and Base rail here (a custom cluster's mint, a Base RPC), without
 * which it would start on another USDC or no Base rail. Named, not their values: an RPC URL often
 * carries an API key, and this line is printed (and kept in logs).
 */
export function serveCommand(
  config: { dataDir: string; network?: string; usdcMint?: string; baseRpc?: string; baseUsdc?: string },
  platform: NodeJS.Platform = process.platform,
): string {
  const serve = shellWords(
    ['coffer', 'serve', '--data-dir', config.dataDir, ...(config.network === undefined ? [] : ['--network', config.network])],
    platform,
  );
  const named: [string, string | undefined][] = [
    ['COFFER_USDC_MINT', config.usdcMint],
    ['COFFER_BASE_RPC', config.baseRpc],
    ['COFFER_BASE_USDC', config.baseUsdc],
  ];
  const set = named.filter(([, value]) => value !== undefined && value !== '').map(([name]) => name);
  if (set.length === 0) return serve;
  const names = set.length === 1 ? set[0]! : `${set.slice(0, -1).join(', ')} and ${set.at(-1)!}`;
  return `${serve}, with ${names} set as ${set.length === 1 ? 'it is' : 'they are'} here`;
}

/** A wallet a backup file has no key for, named as the owner knows it: whose, on which rail, its address. */
function walletWithoutKeyWords({ address, rail, agentId, named }: WalletWithoutKey): string {
  const whose = named === 'writer' ? "the test chain's own" : agentId === null ? "the treasury's" : `agent "${agentId}"'s`;
  return `${whose} ${rail === 'base' ? 'Base account' : 'Solana wallet'} ${address}`;
}
