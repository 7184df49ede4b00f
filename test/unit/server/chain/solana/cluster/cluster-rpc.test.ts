import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSolanaError, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS } from '@solana/kit';
import { clusterRpc, RpcAnswered } from '../../../../../../server/chain/solana/cluster/cluster-rpc.js';

/** An RPC that answers every request with the error it is given (a provider's own code, or Solana's). */
describe('a cluster RPC answering an error', () => {
  let server: Server;
  let url: string;
  let error: Record<string, unknown> = {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: unknown };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("with a code kit does not know, is said in the RPC's own words", async () => {
    error = { code: 429, message: 'Too many requests for a specific RPC call' };
    const thrown = await clusterRpc(url)
      .getLatestBlockhash()
      .send()
      .catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(RpcAnswered);
    expect((thrown as Error).message).toBe('error 429: Too many requests for a specific RPC call');
    // A preflight failure without its data, which kit cannot read either.
    error = { code: -32002, message: 'Transaction simulation failed' };
    const preflight = await clusterRpc(url)
      .getLatestBlockhash()
      .send()
      .catch((e: unknown) => e);
    expect((preflight as Error).message).toBe('error -32002: Transaction simulation failed');
  });

  it("with one of Solana's codes, is kit's own error, as before", async () => {
    error = { code: -32602, message: 'Invalid params: bad slot' };
    const thrown = await clusterRpc(url)
      .getLatestBlockhash()
      .send()
      .catch((e: unknown) => e);
    expect(thrown).not.toBeInstanceOf(RpcAnswered);
    expect(isSolanaError(thrown, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)).toBe(true);
  });
});
