import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import {
  DEMO_LOCALNET_GENESIS_HASH,
  GENESIS_HASHES,
  NAMED_RPC_NETWORKS,
  USDC_MINTS,
  identifyCluster,
  parseNetwork,
  x402Networks,
} from '../../../../../server/chain/solana/networks.js';

// The real USDC mints (Circle): mainnet and devnet.
const MAINNET_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const CUSTOM_MINT = 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr';

function rpc(value: string, mint?: string) {
  const choice = parseNetwork(value, mint);
  if (choice.kind !== 'rpc') throw new Error(`expected an RPC network for ${value}`);
  return choice.network;
}

describe('parseNetwork', () => {
  it('knows the real USDC mints', () => {
    expect(USDC_MINTS.mainnet).toBe(MAINNET_USDC);
    expect(USDC_MINTS.devnet).toBe(DEVNET_USDC);
  });

  it('"sim" is the embedded chain', () => {
    expect(parseNetwork('sim')).toEqual({ kind: 'sim' });
    expect(parseNetwork('sim', CUSTOM_MINT)).toEqual({ kind: 'sim' });
  });

  it('"devnet" is the public devnet RPC with the devnet USDC mint', () => {
    expect(parseNetwork('devnet')).toEqual({
      kind: 'rpc',
      network: { name: 'devnet', rpcUrl: 'https://api.devnet.solana.com', usdcMint: DEVNET_USDC },
    });
  });

  it('"mainnet" is the public mainnet-beta RPC with the mainnet USDC mint', () => {
    expect(parseNetwork('mainnet')).toEqual({
      kind: 'rpc',
      network: { name: 'mainnet', rpcUrl: 'https://api.mainnet-beta.solana.com', usdcMint: MAINNET_USDC },
    });
  });

  it('does not let a caller mutate the named network table through the result', () => {
    const network = rpc('devnet');
    network.usdcMint = 'changed';
    expect(NAMED_RPC_NETWORKS.devnet.usdcMint).toBe(DEVNET_USDC);
    expect(rpc('devnet').usdcMint).toBe(DEVNET_USDC);
  });

  it.each(['https://api.devnet.solana.com', 'https://devnet.helius-rpc.com/?api-key=abc', 'http://my-devnet-node.internal:8899'])(
    'an RPC URL whose host names devnet (%s) uses the devnet mint',
    (url) => {
      expect(rpc(url)).toEqual({ name: 'devnet', rpcUrl: url, usdcMint: DEVNET_USDC });
    },
  );

  it.each([
    'https://api.mainnet-beta.solana.com',
    'https://mainnet.helius-rpc.com/?api-key=abc',
    'https://rpc.example.com/devnet', // devnet only in the path: the host decides
    'https://rpc.example.com/?cluster=devnet',
  ])('any other RPC URL (%s) is taken as mainnet with the mainnet mint', (url) => {
    expect(rpc(url)).toEqual({ name: 'mainnet', rpcUrl: url, usdcMint: MAINNET_USDC });
  });

  it.each(['http://127.0.0.1:8899', 'http://localhost:8899'])('a local validator URL (%s) is named localnet', (url) => {
    const network = rpc(url);
    expect(network.name).toBe('localnet');
    expect(network.rpcUrl).toBe(url);
  });

  it('COFFER_USDC_MINT (the override argument) sets the mint of a custom RPC cluster', () => {
    expect(rpc('http://127.0.0.1:8899', CUSTOM_MINT).usdcMint).toBe(CUSTOM_MINT);
    expect(rpc('https://rpc.example.com', CUSTOM_MINT).usdcMint).toBe(CUSTOM_MINT);
    expect(rpc('https://devnet.example.com', CUSTOM_MINT).usdcMint).toBe(CUSTOM_MINT);
  });

  it('without the override, the mint follows the cluster', () => {
    expect(rpc('http://127.0.0.1:8899', undefined).usdcMint).toBe(MAINNET_USDC);
    expect(rpc('https://devnet.example.com', undefined).usdcMint).toBe(DEVNET_USDC);
  });

  it.each([
    ['an unknown name', 'testnet'],
    ['a capitalised name', 'Devnet'],
    ['SIM in capitals', 'SIM'],
    ['an empty string', ''],
    ['a blank string', ' '],
    ['a host without a scheme', 'api.devnet.solana.com'],
    ['a websocket URL', 'wss://api.devnet.solana.com'],
    ['an ftp URL', 'ftp://example.com'],
    ['a file URL', 'file:///tmp/x'],
    ['a name with a trailing space', 'devnet '],
  ])('throws for %s (%j)', (_label, value) => {
    expect(() => parseNetwork(value)).toThrow(/network/);
  });
});

describe('identifyCluster: an RPC URL is the cluster its genesis hash says', () => {
  const url = 'http://127.0.0.1:8899';
  it('devnet and mainnet by their genesis hash, with their real USDC mint whatever was asked', () => {
    expect(identifyCluster(rpc(url, CUSTOM_MINT), GENESIS_HASHES.devnet)).toEqual({ name: 'devnet', rpcUrl: url, usdcMint: DEVNET_USDC });
    expect(identifyCluster(rpc('https://rpc.example.com/devnet', CUSTOM_MINT), GENESIS_HASHES.mainnet)).toEqual({
      name: 'mainnet',
      rpcUrl: 'https://rpc.example.com/devnet',
      usdcMint: MAINNET_USDC,
    });
  });

  it('another cluster is localnet on a loopback address and custom elsewhere, even when its host says devnet', () => {
    expect(identifyCluster(rpc(url, CUSTOM_MINT), 'GH7ome3EiwEr7tu9JuTh2dpYWBJK3z69Xm1ZE3MEE6JC')).toEqual({
      name: 'localnet',
      rpcUrl: url,
      usdcMint: CUSTOM_MINT,
    });
    expect(identifyCluster(rpc('https://my-devnet.example.com'), '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z').name).toBe('custom');
  });

  it("the demo's local cluster (coffer demo-x402) is demo-localnet, its test USDC at devnet's mint address: never devnet", () => {
    // Its genesis hash is its own, derived from words, so no real cluster has it.
    expect(DEMO_LOCALNET_GENESIS_HASH).toBe(
      bs58.encode(createHash('sha256').update('coffer demo-x402: a local cluster of test money').digest()),
    );
    expect(DEMO_LOCALNET_GENESIS_HASH).not.toBe(GENESIS_HASHES.devnet);
    expect(identifyCluster(rpc(url, CUSTOM_MINT), DEMO_LOCALNET_GENESIS_HASH)).toEqual({
      name: 'demo-localnet',
      rpcUrl: url,
      usdcMint: DEVNET_USDC,
    });
  });

  it('without an answer the URL decides, as parseNetwork does', () => {
    expect(identifyCluster(rpc('https://devnet.example.com'), null)).toEqual(rpc('https://devnet.example.com'));
  });
});

describe('x402Networks', () => {
  it('names devnet and mainnet in x402 v1 and v2 (CAIP-2), and nothing else', () => {
    expect(x402Networks('devnet')).toEqual({ v1: 'solana-devnet', v2: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' });
    expect(x402Networks('mainnet')).toEqual({ v1: 'solana', v2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' });
    for (const other of ['sim', 'localnet', 'custom']) expect(x402Networks(other)).toBeNull();
  });

  it("speaks of the demo's local cluster as devnet, the only name x402's packages give a test cluster", () => {
    expect(x402Networks('demo-localnet')).toEqual(x402Networks('devnet'));
  });
});
