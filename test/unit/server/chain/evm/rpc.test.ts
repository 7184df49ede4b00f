import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPublicClient } from 'viem';
import { chainCheckedTransport } from '../../../../../server/chain/evm/rpc.js';

/**
 * A node at the edge of the world, by its HTTP door: away (every connection dropped), or answering
 * `eth_chainId` with `chainId` and `eth_blockNumber` with 7; each method asked counted.
 */
function node(chainId: number) {
  const asked = new Map<string, number>();
  const state = { away: true, asked };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string };
      asked.set(call.method, (asked.get(call.method) ?? 0) + 1);
      if (state.away) return req.socket.destroy();
      const result = call.method === 'eth_chainId' ? `0x${chainId.toString(16)}` : '0x7';
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
    });
  });
  return {
    state,
    url: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const nodes: ReturnType<typeof node>[] = [];
afterEach(async () => {
  for (const each of nodes.splice(0)) await each.close();
});

const BASE_SEPOLIA = { name: 'base-sepolia', chainId: 84532 };
const mismatch = (served: number) => `serves chain ${served}, not 84532`;

async function checkedClient(chainId: number) {
  const door = node(chainId);
  nodes.push(door);
  let clock = 1_000_000;
  const transport = chainCheckedTransport(await door.url(), BASE_SEPOLIA, mismatch, 'fetch failed', () => clock);
  return { door, client: createPublicClient({ transport }), pass: (ms: number) => (clock += ms) };
}

describe('chainCheckedTransport (a COFFER_BASE_RPC away when the rail opened)', () => {
  it('refuses in words while the node is away, asking it again at most every 10 s, then checks its chain before anything else', async () => {
    const { door, client, pass } = await checkedClient(84532);
    const refusal = await client.getBlockNumber({ cacheTime: 0 }).catch((error: Error) => error);
    expect(String((refusal as Error).cause ?? refusal)).toMatch(/the base-sepolia node did not answer which chain it serves: fetch failed/);
    // Just away at the open: not asked again yet (a quiet node would cost its timeouts each time).
    expect(Object.fromEntries(door.state.asked)).toEqual({});
    pass(10_001);
    await expect(client.getBlockNumber({ cacheTime: 0 })).rejects.toThrow();
    await expect(client.getBlockNumber({ cacheTime: 0 })).rejects.toThrow();
    // Asked once (viem's one retry: twice), then taken as away again.
    expect(Object.fromEntries(door.state.asked)).toEqual({ eth_chainId: 2 });
    door.state.away = false;
    pass(10_001);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(7n);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(7n);
    // Its chain asked once it answered, and never again.
    expect(Object.fromEntries(door.state.asked)).toEqual({ eth_chainId: 3, eth_blockNumber: 2 });
  });

  it('asks a node away again at once when the clock is set back, rather than waiting as long', async () => {
    const { door, client, pass } = await checkedClient(84532);
    door.state.away = false;
    pass(-3_600_000);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(7n);
  });

  it('asks nothing of a node that answers for another chain, ever', async () => {
    const { door, client, pass } = await checkedClient(8453);
    door.state.away = false;
    pass(10_001);
    for (let i = 0; i < 2; i++) {
      const refusal = await client.getBlockNumber({ cacheTime: 0 }).catch((error: Error) => error);
      expect(String((refusal as Error).cause ?? refusal)).toMatch(/serves chain 8453, not 84532/);
      pass(10_001);
    }
    expect(Object.fromEntries(door.state.asked)).toEqual({ eth_chainId: 1 });
  });
});
