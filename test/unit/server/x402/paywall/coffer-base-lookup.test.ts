import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cofferBaseTransferLookup } from '../../../../../server/x402/paywall/transfer-lookups.js';
import { evmTransferLookup } from '../../../../../server/chain/evm/transfer-lookup.js';
import { rpcTransport } from '../../../../../server/chain/evm/rpc.js';

/** A Coffer's health with a Base rail, and its /evm-rpc answering `evmRpcStatus`. */
async function cofferAnswering(evmRpcStatus: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/v1/health') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          network: 'sim',
          usdcMint: 'mint',
          base: { network: 'base-sepolia', chainId: 84532, usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
        }),
      );
      return;
    }
    res.statusCode = evmRpcStatus;
    res.end(JSON.stringify({ error: 'the server is stopping', code: 'shutting_down' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("reading Base receipts through a Coffer's /evm-rpc", () => {
  let coffer: { url: string; server: Server } | null = null;
  afterEach(() => coffer?.server.close());

  it('says a Coffer serves no embedded chain only where /evm-rpc is not there (404); another failure is said as it is', async () => {
    coffer = await cofferAnswering(404);
    await expect(cofferBaseTransferLookup(coffer.url)).rejects.toThrow(
      // The library's argument named, and the command's variable: a library caller sets no variable.
      /reads Base \(base-sepolia\) from a node of its own, not at \/evm-rpc: give that node's URL \(rpcUrl; COFFER_BASE_RPC to coffer demo-api\)$/,
    );
    coffer.server.close();
    coffer = await cofferAnswering(503);
    await expect(cofferBaseTransferLookup(coffer.url)).rejects.toThrow(/\/evm-rpc answered 503 to eth_chainId/);
  });

  it("names a Base node given by its origin only: a hosted RPC's key rides in its path", async () => {
    coffer = await cofferAnswering(404);
    const node = await cofferAnswering(401);
    try {
      const refusal = (await cofferBaseTransferLookup(coffer.url, `${node.url}/v2/SECRETKEY?apikey=SECRET2`).catch(
        (error: Error) => error,
      )) as Error;
      expect(refusal.message).toBe(`the Base node given (${node.url}) answered 401 to eth_chainId`);
    } finally {
      node.server.close();
    }
    // A question the node does not answer, in one line, without its URL.
    const lookup = evmTransferLookup(rpcTransport('http://127.0.0.1:9/v2/SECRETKEY'), {
      name: 'base-sepolia',
      chainId: 84532,
      usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    });
    const unanswered = (await lookup.findTransfer(`0x${'ab'.repeat(32)}`).catch((error: Error) => error)) as Error;
    expect(unanswered.message).toMatch(/^the base-sepolia node did not answer a transaction: [^\n]+$/);
    expect(unanswered.message).not.toMatch(/SECRETKEY|127\.0\.0\.1/);
  });
});
