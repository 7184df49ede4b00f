import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalEvmChain } from '../../server/demo-x402/local-evm-chain.js';

/**
 * `coffer demo-x402`'s EVM chain mines as time passes. The embedded chain mines only when a
 * transaction comes; the demo's Coffer reaches this one as any RPC, so its time stood still between
 * transactions, and a Base x402 payment no seller settled stayed pending past its authorization's end
 * (found by a newcomer's walk: 76 s past it, until an unrelated payment mined a block).
 */
describe("the demo's EVM chain", () => {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-demo-evm-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('mines an empty block whenever it went a while without one, and a restart keeps those blocks', async () => {
    const file = join(dir, 'evm-chain.db');
    const chain = await startLocalEvmChain({ file, idleBlockMs: 1_500 });
    const client = createPublicClient({ transport: http(chain.url, { retryCount: 0 }) });
    const started = { block: await client.getBlock(), at: Date.now() };
    let latest = started.block;
    try {
      // Nothing is sent: its time comes to the clock's all the same.
      for (let waited = 0; waited < 10_000 && latest.timestamp < started.block.timestamp + 3n; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        latest = await client.getBlock();
      }
      expect(latest.timestamp).toBeGreaterThanOrEqual(started.block.timestamp + 3n);
      expect(Number(latest.timestamp)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 3);
      // One block an idle spell, not one each look (every third of it).
      const spells = Math.ceil((Date.now() - started.at) / 1_500);
      expect(Number(latest.number - started.block.number)).toBeLessThanOrEqual(spells + 1);
    } finally {
      await chain.stop();
    }
    const again = await startLocalEvmChain({ file, idleBlockMs: 60_000 });
    try {
      const replayed = await createPublicClient({ transport: http(again.url, { retryCount: 0 }) }).getBlock();
      expect(replayed.number).toBeGreaterThanOrEqual(latest.number);
      expect(replayed.timestamp).toBeGreaterThanOrEqual(latest.timestamp);
    } finally {
      await again.stop();
    }
  });
});
