import type { Address, PublicClient } from 'viem';
import { describe, expect, it } from 'vitest';
import { tokenNamingReader } from '../../../../../server/chain/evm/token-domain.js';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e' as Address;

/** A node that answers the token's name and version, failing the first `failures` reads. */
function node(failures: number) {
  const asked: string[] = [];
  let failing = failures;
  const client = {
    readContract: async ({ address, functionName }: { address: Address; functionName: string }) => {
      asked.push(`${address}.${functionName}`);
      if (failing > 0) {
        failing -= 1;
        throw new Error('the node did not answer');
      }
      return functionName === 'name' ? 'USD Coin' : '2';
    },
  } as unknown as PublicClient;
  return { client, asked };
}

describe("a USDC token's EIP-712 name and version", () => {
  it('are read from the token once, however often asked', async () => {
    const { client, asked } = node(0);
    const naming = tokenNamingReader(client, USDC);
    const answers = await Promise.all([naming(), naming()]);
    expect(await naming()).toEqual({ name: 'USD Coin', version: '2' });
    expect(answers).toEqual([
      { name: 'USD Coin', version: '2' },
      { name: 'USD Coin', version: '2' },
    ]);
    expect(asked.sort()).toEqual([`${USDC}.name`, `${USDC}.version`]);
  });

  it('are read again after a read that failed', async () => {
    const { client, asked } = node(1);
    const naming = tokenNamingReader(client, USDC);
    await expect(naming()).rejects.toThrow('the node did not answer');
    expect(await naming()).toEqual({ name: 'USD Coin', version: '2' });
    expect(asked).toHaveLength(4);
  });
});
