import { describe, expect, it } from 'vitest';
import {
  DEMO_EVM_CHAIN_ID,
  DEMO_EVM_NETWORK,
  DEMO_LOCALNET,
  isTestMoney,
  networkChip,
  networkWords,
  usdcWords,
} from '../../../../server/wire/network-words.js';
import { evmNetworkOf } from '../../../../server/chain/evm/networks.js';

describe('network words: test money is said to be test money', () => {
  it("the demo's local cluster is named for what it is wherever a person reads it, never as devnet", () => {
    expect(DEMO_LOCALNET).toBe('demo-localnet');
    expect(networkChip(DEMO_LOCALNET)).toBe('demo-localnet (test money)');
    expect(networkWords(DEMO_LOCALNET)).toMatch(/test USDC, not devnet/);
  });

  it("the demo's local EVM chain is test money, never taken for Base", () => {
    // The name the Base rail gives the chain by the id the demo chain's node answers.
    expect(evmNetworkOf(DEMO_EVM_CHAIN_ID, '0x5098F5913Ac919BE586900dd64c6dD55B6382DF3').name).toBe(DEMO_EVM_NETWORK);
    expect(networkChip(DEMO_EVM_NETWORK)).toBe(`${DEMO_EVM_NETWORK} (test money)`);
    expect(networkWords(DEMO_EVM_NETWORK)).toMatch(/^the local EVM chain of coffer demo-x402 \(test USDC, not Base\)$/);
    // Another chain named by its id is whatever its owner says it is: its name alone.
    expect(networkChip('evm-31337')).toBe('evm-31337');
    expect(networkWords('evm-31337')).toBe('evm-31337');
  });

  it('what was paid on a demo network is said to be test USDC; elsewhere USDC, as its chip says', () => {
    expect([DEMO_EVM_NETWORK, DEMO_LOCALNET].map(usdcWords)).toEqual(['test USDC', 'test USDC']);
    expect(['base', 'evm-31337', 'mainnet', 'sim', 'base-sepolia'].map(usdcWords)).toEqual(Array(5).fill('USDC'));
    // An older Coffer names no network: nothing is said of it.
    expect(usdcWords(null)).toBe('USDC');
  });

  it('the sim chain keeps its words; devnet and mainnet are their names', () => {
    expect(networkWords('sim')).toBe('the embedded sim chain (test USDC)');
    expect(networkChip('sim')).toBe('sim');
    for (const network of ['devnet', 'mainnet', 'localnet', 'custom']) {
      expect(networkWords(network)).toBe(network);
      expect(networkChip(network)).toBe(network);
    }
  });
});

describe('isTestMoney', () => {
  it('is true on the test chains: the embedded ones, the demo’s, devnet, Base Sepolia, a local cluster', () => {
    for (const network of ['sim', DEMO_LOCALNET, DEMO_EVM_NETWORK, 'devnet', 'base-sepolia', 'localnet']) {
      expect({ network, test: isTestMoney(network) }).toEqual({ network, test: true });
    }
  });

  it('is false on the mainnets, and on a chain Coffer cannot tell (never said of money that may be real)', () => {
    for (const network of ['mainnet', 'base', 'custom', 'evm-1', 'evm-137']) {
      expect({ network, test: isTestMoney(network) }).toEqual({ network, test: false });
    }
  });
});
