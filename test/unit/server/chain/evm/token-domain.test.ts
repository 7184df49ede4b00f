import { ContractFunctionExecutionError, ContractFunctionRevertedError, domainSeparator, type Address, type PublicClient } from 'viem';
import { describe, expect, it } from 'vitest';
import { tokenNamingReader } from '../../../../../server/chain/evm/token-domain.js';
import { USDC_ABI } from '../../../../../server/chain/evm/usdc-abi.js';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e' as Address;
const CHAIN_ID = 84_532;

/**
 * A node that answers the token's name, version and domain separator (`separator`: the token's own
 * for this chain, another chain's, or none: the call reverts), failing the first
 * `failures` reads.
 */
function node(failures: number, separator: 'own' | 'other chain' | 'none' = 'own') {
  const asked: string[] = [];
  let failing = failures;
  const client = {
    readContract: async ({ address, functionName }: { address: Address; functionName: string }) => {
      asked.push(`${address}.${functionName}`);
      if (failing > 0) {
        failing -= 1;
        throw new Error('the node did not answer');
      }
      if (functionName === 'DOMAIN_SEPARATOR') {
        if (separator === 'none') {
          throw new ContractFunctionExecutionError(
            new ContractFunctionRevertedError({ abi: USDC_ABI, functionName, message: 'execution reverted' }),
            {
              abi: USDC_ABI,
              functionName,
              contractAddress: USDC,
            },
          );
        }
        const chainId = separator === 'own' ? CHAIN_ID : 8_453;
        return domainSeparator({ domain: { name: 'USD Coin', version: '2', chainId, verifyingContract: USDC } });
      }
      return functionName === 'name' ? 'USD Coin' : '2';
    },
  } as unknown as PublicClient;
  return { client, asked };
}

describe("a USDC token's EIP-712 name and version", () => {
  it('are read from the token once, however often asked, and held to its domain separator', async () => {
    const { client, asked } = node(0);
    const naming = tokenNamingReader(client, USDC, CHAIN_ID);
    const answers = await Promise.all([naming(), naming()]);
    expect(await naming()).toEqual({ name: 'USD Coin', version: '2' });
    expect(answers).toEqual([
      { name: 'USD Coin', version: '2' },
      { name: 'USD Coin', version: '2' },
    ]);
    expect(asked.sort()).toEqual([`${USDC}.DOMAIN_SEPARATOR`, `${USDC}.name`, `${USDC}.version`]);
  });

  it('are read again after a read that failed', async () => {
    const { client, asked } = node(1);
    const naming = tokenNamingReader(client, USDC, CHAIN_ID);
    await expect(naming()).rejects.toThrow('the node did not answer');
    expect(await naming()).toEqual({ name: 'USD Coin', version: '2' });
    expect(asked).toHaveLength(6);
  });

  it("are refused where the token signs under another domain (another chain's), so nothing is signed under them", async () => {
    const naming = tokenNamingReader(node(0, 'other chain').client, USDC, CHAIN_ID);
    await expect(naming()).rejects.toMatchObject({ code: 'chain_unavailable', message: expect.stringContaining('on chain 84532') });
  });

  it('are not used from a token that does not answer its domain separator, and are read again next time', async () => {
    const { client, asked } = node(0, 'none');
    const naming = tokenNamingReader(client, USDC, CHAIN_ID);
    await expect(naming()).rejects.toThrow();
    await expect(naming()).rejects.toThrow();
    expect(asked.filter((each) => each.endsWith('DOMAIN_SEPARATOR'))).toHaveLength(2);
  });
});
