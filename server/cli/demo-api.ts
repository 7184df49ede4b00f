import { createServer } from 'node:http';
import { CofferApiError } from '../client/client-error.js';
import { STOP_SIGNALS } from '../boot/stop-signals.js';
import { answerRejectedRequestsInJson } from '../boot/loopback-server.js';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDemoApi } from '../demo-api/demo-api.js';
import { openPaywallStore } from '../x402/paywall/paywall-store.js';
import {
  cofferBaseTransferLookup,
  cofferTransferLookup,
  rpcBaseTransferLookup,
  rpcTransferLookup,
} from '../x402/paywall/transfer-lookups.js';
import { facilitatorAt } from '../x402/paywall/facilitator.js';
import { offersExactOn } from '../x402/paywall/facilitator-kinds.js';
import { facilitatorUrlProblem } from '../wire/schemas.js';
import { resolveServeConfig } from '../boot/serve-config.js';
import { announceDemoApi } from '../boot/demo-api-presence.js';
import { parseNetwork, x402Networks } from '../chain/solana/networks.js';

export const DEMO_API_PORT = 7403;

/**
 * `coffer demo-api`: the demo paid API on 127.0.0.1:7403. On the sim network it verifies receipts
 * against the Coffer server of the data dir (its connection file) or --coffer-url; on other networks
 * against that network's RPC, and, with --facilitator URL, x402 clients pay it too, settled by that
 * facilitator: on Solana on devnet and mainnet, and on the Base rail's chain (on sim, the embedded
 * EVM chain) wherever the facilitator settles there. Accepted payments are remembered in DIR/demo-api/paywall.db.
 */
export async function demoApi(flags: {
  'data-dir'?: string;
  port?: string;
  network?: string;
  'coffer-url'?: string;
  facilitator?: string;
}): Promise<number> {
  const early: string[] = [];
  let onSignal: (signal: string) => void = (signal) => void early.push(signal);
  // Listened to for good: a second Ctrl-C, or the terminal closing, must not cut the stop short.
  for (const signal of STOP_SIGNALS) process.on(signal, () => onSignal(signal));
  const { dataDir } = resolveServeConfig({ 'data-dir': flags['data-dir'] });
  // --port, --network and --facilitator were checked as the command was read (table/engine-options.ts).
  const port = Number(flags.port ?? DEMO_API_PORT);
  const connection = readConnection(join(dataDir, 'connection.json'));
  const network = flags.network ?? connection?.network ?? 'sim';
  // Read through the Coffer: the sim network, and a local cluster its connection file names by a
  // label no RPC answers to (`coffer demo-x402`'s demo-localnet): only that Coffer knows its chain.
  const throughCoffer = network === 'sim' || (flags.network === undefined && !namesRpcNetwork(network));
  const cofferUrl = flags['coffer-url'] ?? connection?.url;
  const facilitator = flags.facilitator ?? (process.env.COFFER_FACILITATOR_URL || undefined);
  const badFacilitator = facilitator === undefined ? null : facilitatorUrlProblem(facilitator);
  if (badFacilitator !== null) throw new Error(`COFFER_FACILITATOR_URL ${badFacilitator} (got "${facilitator}")`);
  if (throughCoffer && !cofferUrl) {
    // As every command that finds no Coffer says it (exit 3): a script may start one and try again.
    throw new CofferApiError(
      0,
      'coffer_unreachable',
      `no Coffer server found in ${dataDir}: start \`coffer serve\` first, or pass --coffer-url`,
    );
  }
  const lookup = throughCoffer
    ? await cofferTransferLookup(cofferUrl!)
    : await rpcTransferLookup(network, process.env.COFFER_USDC_MINT || undefined);
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const base = await baseLookup(throughCoffer, network, cofferUrl, log);
  // x402 needs a network x402 names: Solana's on devnet and mainnet, the Base rail's chain anywhere
  // (on sim, the embedded EVM chain); the facilitator's /supported then says which it settles.
  if (facilitator !== undefined && x402Networks(lookup.network) === null && base === null) {
    throw new Error(
      `x402 is paid on Solana on devnet and mainnet, and on Base where the Base rail is open; this demo API verifies ${lookup.network} without Base (leave out --facilitator)`,
    );
  }
  const store = openPaywallStore(join(dataDir, 'demo-api', 'paywall.db'));
  const server = createServer(
    createDemoApi({
      lookup,
      base,
      store,
      log,
      ...(facilitator === undefined ? {} : { x402: { facilitator: facilitatorAt(facilitator, FACILITATOR_ANSWER_MS) } }),
    }),
  );
  answerRejectedRequestsInJson(server, { headersTimeoutMs: server.headersTimeout, requestTimeoutMs: server.requestTimeout });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  }).catch((error: NodeJS.ErrnoException) => {
    store.close();
    if (error.code !== 'EADDRINUSE') throw error;
    // Said as `coffer demo-x402` says it, with a code, not as Node's listen error.
    throw new CofferApiError(
      0,
      'port_in_use',
      `port ${port} on 127.0.0.1 is already in use (choose another with --port); nothing was started`,
    );
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The Coffer of this data dir lists demo-weather and demo-quotes at this URL while it runs; told
  // before the line below, so whoever waits for that line finds the registry already pointing here.
  const { withdraw, listed } = announceDemoApi(dataDir, url);
  if (listed !== null) {
    console.error(
      `Another demo API runs for this data dir and stays listed as demo-weather and demo-quotes, at ${listed}; this one serves too, unlisted`,
    );
  }
  // The networks its 402s offer x402 on, as x402 names them, where the facilitator settles there.
  const offered = [x402Networks(lookup.network)?.v2, base === null ? undefined : `eip155:${base.lookup.chainId}`];
  const x402Said =
    facilitator === undefined
      ? ''
      : `; ${await whatFacilitatorSettles(
          facilitator,
          offered.filter((name) => name !== undefined),
        )}`;
  console.log(
    `Coffer demo API listening on ${url} (network: ${lookup.network}${base === null ? '' : `, and Base on ${base.lookup.network}`}; GET /weather?city=, GET /quote?symbol=${x402Said})`,
  );
  return new Promise((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      withdraw();
      server.close(() => {
        store.close();
        resolve(0);
      });
      server.closeIdleConnections();
    };
    onSignal = stop;
    if (early.length > 0) stop();
  });
}

/**
 * The Base chain the demo API reads Base receipts on: through the Coffer, the chain it pays Base on
 * (its embedded one, else COFFER_BASE_RPC: the node of its own it reads); else COFFER_BASE_RPC or the
 * public RPC of the Base network that goes with the Solana one. None where the rail is off or its
 * node cannot be read now (said once; Solana receipts are taken all the same, and its 402s offer no
 * Base: a Base receipt it could not verify would be money taken for nothing).
 */
async function baseLookup(throughCoffer: boolean, network: string, cofferUrl: string | undefined, log: (message: string) => void) {
  const rpc = process.env.COFFER_BASE_RPC || undefined;
  if (rpc === 'off') return null;
  try {
    const lookup = throughCoffer
      ? await cofferBaseTransferLookup(cofferUrl!, rpc)
      : await rpcBaseTransferLookup(network, rpc, process.env.COFFER_BASE_USDC || undefined);
    return lookup === null ? null : { lookup };
  } catch (error) {
    log(`demo API: Base receipts are not taken (its chain could not be read: ${(error as Error).message})`);
    return null;
  }
}

/** Whether `network` is one an RPC answers to: devnet, mainnet or an http(s) URL (sim is not). */
function namesRpcNetwork(network: string): boolean {
  try {
    return parseNetwork(network).kind === 'rpc';
  } catch {
    return false;
  }
}

function readConnection(file: string): { url: string; network: string } | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { url: string; network: string };
  } catch {
    return null;
  }
}

/**
 * How long a paid request waits for the facilitator's verify or settle before the demo answers 503
 * (the buyer presents the payment again, and the settlement is resumed): inside the 45 s an MCP
 * buyer waits for an answer, where the package's own 90 s would outlast it.
 */
const FACILITATOR_ANSWER_MS = 30_000;

/** How long the first line waits for the facilitator to say what it settles. */
const FACILITATOR_ASKED_MS = 5_000;

/**
 * What the facilitator settles of the networks the demo API offers x402 on, asked once as it starts
 * (a client of its own, whose request ends in FACILITATOR_ASKED_MS): its 402s offer x402 only where
 * it settles (asked again as they are made), so a facilitator that cannot be reached would otherwise
 * leave the first line promising x402 that no 402 offers.
 */
async function whatFacilitatorSettles(url: string, offered: string[]): Promise<string> {
  try {
    const { kinds } = await facilitatorAt(url, FACILITATOR_ASKED_MS).getSupported();
    const settled = offered.filter((network) => offersExactOn(kinds, network));
    return settled.length > 0
      ? `x402 through ${url}, which settles exact on ${settled.join(', ')}`
      : `x402 through ${url}, which settles none of ${offered.join(', ')}: its 402s offer no x402`;
  } catch (error) {
    return `x402 through ${url}, which could not be asked (${(error as Error).message}): its 402s offer x402 once it answers`;
  }
}
