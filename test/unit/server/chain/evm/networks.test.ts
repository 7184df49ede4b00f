import { describe, expect, it } from 'vitest';
import { BASE_SEPOLIA, evmNetworkOf } from '../../../../../server/chain/evm/networks.js';

describe('the EVM network an RPC serves', () => {
  it('is known by its chain id, its USDC held to the known one', () => {
    expect(evmNetworkOf(84532, undefined)).toEqual({ name: 'base-sepolia', chainId: 84532, usdc: BASE_SEPOLIA.usdc, isSim: false });
    expect(() => evmNetworkOf(84532, '0x0000000000000000000000000000000000000001')).toThrow(/is base-sepolia, whose USDC is/);
  });

  it('of another chain, asks for its USDC both where a command is given it and where a library call is', () => {
    expect(() => evmNetworkOf(31337, undefined)).toThrow(
      "the EVM RPC serves chain 31337, which is not Base's: name its USDC's address (COFFER_BASE_USDC; usdc to a transfer lookup)",
    );
    expect(evmNetworkOf(31337, '0x036cbd53842c5426634e7929541ec2318f3dcf7e').usdc).toBe(BASE_SEPOLIA.usdc);
  });
});
