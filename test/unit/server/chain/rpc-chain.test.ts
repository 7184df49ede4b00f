import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { getBase58Decoder } from '@solana/kit';
import { RpcChain } from '../../../../server/chain/rpc-chain.js';
import { USDC_MINTS } from '../../../../server/chain/networks.js';

/**
 * A remote RPC node, scripted: each JSON-RPC method answers what its script says for that call (as a
 * node does, in the shapes of Solana's JSON-RPC), and the calls are recorded in order.
 */
async function scriptedNode(script: Record<string, (call: number) => unknown>) {
  const calls: string[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: unknown; method: string };
      calls.push(method);
      const n = counts.get(method) ?? 0;
      counts.set(method, n + 1);
      const answer = script[method];
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify(
          answer === undefined
            ? { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
            : { jsonrpc: '2.0', id, result: answer(n) },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const signature = () => getBase58Decoder().decode(randomBytes(64));
const statuses = (status: object | null) => ({ context: { slot: 500 }, value: [status] });
const LANDED = { slot: 499, confirmations: null, err: null, confirmationStatus: 'confirmed', status: { Ok: null } };

describe("RpcChain's fate of a transaction Coffer sent", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((node) => node.close()));
  });
  const chainOn = async (script: Record<string, (call: number) => unknown>) => {
    const node = await scriptedNode(script);
    open.push(node);
    return { node, chain: new RpcChain({ name: 'devnet', rpcUrl: node.url, usdcMint: USDC_MINTS.devnet }, null) };
  };

  it('is not dropped when it lands between the status read and a height past its last block: the status is read again', async () => {
    // Unseen at the first read; in one of its last valid blocks by the time the height is read.
    const { chain } = await chainOn({
      getSignatureStatuses: (call) => statuses(call === 0 ? null : LANDED),
      getBlockHeight: () => 101,
    });
    expect(await chain.fateOf({ txSignature: signature(), lastValidBlockHeight: 100n })).toEqual({ state: 'succeeded' });
  });

  it('is dropped when the status, read after a height past its last block, still does not know it', async () => {
    const { chain, node } = await chainOn({ getSignatureStatuses: () => statuses(null), getBlockHeight: () => 101 });
    expect(await chain.fateOf({ txSignature: signature(), lastValidBlockHeight: 100n })).toEqual({ state: 'dropped' });
    expect(node.calls).toEqual(['getSignatureStatuses', 'getBlockHeight', 'getSignatureStatuses']);
  });

  it('is unknown while its blockhash can still land, and one status read settles a landed one', async () => {
    const unseen = await chainOn({ getSignatureStatuses: () => statuses(null), getBlockHeight: () => 100 });
    expect(await unseen.chain.fateOf({ txSignature: signature(), lastValidBlockHeight: 100n })).toEqual({ state: 'unknown' });
    expect(unseen.node.calls).toEqual(['getSignatureStatuses', 'getBlockHeight']);
    const landed = await chainOn({ getSignatureStatuses: () => statuses(LANDED) });
    expect(await landed.chain.fateOf({ txSignature: signature(), lastValidBlockHeight: 100n })).toEqual({ state: 'succeeded' });
    expect(landed.node.calls).toEqual(['getSignatureStatuses']);
  });
});
