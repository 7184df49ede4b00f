// The commands that run Coffer (headless or as the desktop app) and its demos.
import { defineCommand } from '../command-line.js';
import { engineOptions } from './engine-options.js';

const serveOptions = {
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  network: { type: 'string' },
} as const;

export const serve = defineCommand({
  name: 'serve',
  usage: `  coffer serve [--data-dir DIR] [--port PORT] [--network sim|devnet|mainnet|<rpc-url>]
                 run the engine and the localhost /v1 server (headless); the Base rail beside the
                 network: the embedded EVM on sim, Base Sepolia beside devnet, Base beside mainnet,
                 none beside an <rpc-url>; COFFER_BASE_RPC names its node (or off)`,
  options: serveOptions,
  run: async ({ values }, { version }) => {
    engineOptions(values, 'serve');
    return (await import('../serve.js')).serve(values, version);
  },
});

export const start = defineCommand({
  name: 'start',
  usage: `  coffer start [--data-dir DIR] [--port PORT] [--network NET]
                 the desktop app; headless where Electron cannot run`,
  options: serveOptions,
  run: async ({ values }, { version }) => {
    engineOptions(values, 'start');
    return (await import('../start.js')).start(values, version);
  },
});

export const demoApi = defineCommand({
  name: 'demo-api',
  usage: `  coffer demo-api [--port 7403] [--data-dir DIR] [--coffer-url URL] [--network NET] [--facilitator URL]
                 a small paid API (weather, quotes at 0.01 USDC) protected by Coffer's paywall;
                 with --facilitator x402 clients pay it too, where that facilitator settles
                 (Solana on devnet and mainnet; the Base rail's chain, on sim the embedded one)`,
  options: { ...serveOptions, 'coffer-url': { type: 'string' }, facilitator: { type: 'string' } },
  run: async ({ values }) => {
    engineOptions(values, 'demo-api');
    return (await import('../demo-api.js')).demoApi(values);
  },
});

export const demoX402 = defineCommand({
  name: 'demo-x402',
  usage: `  coffer demo-x402 [--port 7404] [--data-dir DIR]
                 x402 end to end on this machine, with TEST MONEY: a local Solana cluster
                 (demo-localnet, not devnet) and a local EVM chain (chain 790527, not Base), the
                 official x402 facilitator, the demo seller behind the official @x402/express
                 middleware, and a Coffer with an agent funded on both, in a temporary folder (DIR
                 keeps it); prints the coffer fetch and official-client commands that pay it on
                 each chain; Ctrl-C stops it all`,
  options: { port: { type: 'string' }, 'data-dir': { type: 'string' } },
  run: async ({ values }, { version }) => {
    engineOptions(values, 'demo-x402');
    return (await import('../demo-x402.js')).demoX402(values, version);
  },
});
