import { createPublicClient, http, type Address } from 'viem';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { EMBEDDED_EVM_USDC } from '../../server/chain/evm/sim/chain.js';

/**
 * A wallet's USDC as each embedded chain's own JSON-RPC says it, on a served Coffer (Solana's at
 * /rpc, Base's at /evm-rpc): the chain's side of "ledger == chain", read as any wallet would.
 */
export function chainReader(url: string, solanaMint: string) {
  const evm = createPublicClient({ transport: http(`${url}/evm-rpc`, { retryCount: 0 }) });
  const onSolana = async (wallet: string): Promise<bigint> => {
    const response = await fetch(`${url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getTokenAccountsByOwner',
        params: [wallet, { mint: solanaMint }, { encoding: 'jsonParsed' }],
      }),
    });
    const answer = (await response.json()) as {
      error?: unknown;
      result: { value: { account: { data: { parsed: { info: { tokenAmount: { amount: string } } } } } }[] };
    };
    if (answer.error) throw new Error(`getTokenAccountsByOwner ${wallet}: ${JSON.stringify(answer.error)}`);
    return answer.result.value.reduce((sum, entry) => sum + BigInt(entry.account.data.parsed.info.tokenAmount.amount), 0n);
  };
  const onBase = (account: string): Promise<bigint> =>
    evm.readContract({ address: EMBEDDED_EVM_USDC, abi: USDC_ABI, functionName: 'balanceOf', args: [account as Address] });
  return (rail: 'sol' | 'base', wallet: string) => (rail === 'sol' ? onSolana(wallet) : onBase(wallet));
}
