import { address, createSolanaRpc, signature, type Base64EncodedWireTransaction } from '@solana/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { usdcTokenAccount } from '../../server/chain/solana/usdc-transfer.js';
import { fundedAgent, startCoffer, tempDataDir, UNLISTED_API, type TestCoffer } from '../helpers/coffer.js';
import { rmSync } from 'node:fs';
import { pay } from '../helpers/pay.js';
import { acrossRestart } from '../helpers/restart.js';

/**
 * On Solana a signature lands once. The embedded chain's LiteSVM remembers recent signatures only,
 * and none across a restart: the wire bytes of a landed payment, read back from /rpc, must never move
 * money again, with or without preflight, however many transactions later and after a restart.
 */
async function landedPayment(t: TestCoffer, agentId: string) {
  const agent = await fundedAgent(t, agentId, '1.00');
  const paid = await pay(t, agentId, agent.apiKey, { ...UNLISTED_API, amount: '0.10' });
  expect(paid.status).toBe(200);
  const rpc = createSolanaRpc(`${t.url}/rpc`);
  const found = await rpc
    .getTransaction(signature(paid.body.txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0 })
    .send();
  return { agent, txSignature: paid.body.txSignature as string, wire: found!.transaction[0] as Base64EncodedWireTransaction };
}

/** What a replay could change: both token accounts, and the chain's log. */
async function chainState(t: TestCoffer, wallet: string) {
  const rpc = createSolanaRpc(`${t.url}/rpc`);
  const mint = address(t.coffer.chain.usdc);
  const balance = async (owner: string) =>
    (await rpc.getTokenAccountBalance(await usdcTokenAccount(mint, address(owner))).send()).value.amount;
  const log = t.coffer.db.prepare('SELECT COUNT(*) FROM sim_transactions').pluck().get() as number;
  return { payer: await balance(wallet), recipient: await balance(UNLISTED_API.recipient), log };
}

async function replay(t: TestCoffer, wire: string, skipPreflight: boolean) {
  const response = await fetch(`${t.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64', skipPreflight }] }),
  });
  return (await response.json()) as { result?: string; error?: { code: number; data?: { err?: unknown } } };
}

describe('a landed transaction sent again to the embedded chain', () => {
  it('moves nothing after a restart, with or without preflight', async () => {
    await acrossRestart(
      (t) => landedPayment(t, 'replayed'),
      async (t, { agent, wire, txSignature }) => {
        const before = await chainState(t, agent.walletAddress);
        const unchecked = await replay(t, wire, true);
        // As a cluster answers without preflight: the signature, and the transaction is never seen again.
        expect(unchecked.result).toBe(txSignature);
        expect(await chainState(t, agent.walletAddress)).toEqual(before);
        const checked = await replay(t, wire, false);
        expect(checked.error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });
        expect(await chainState(t, agent.walletAddress)).toEqual(before);
      },
    );
  });

  it('moves nothing once many newer transactions have landed', async () => {
    await acrossRestart(
      async (t) => {
        const first = await landedPayment(t, 'early');
        const busy = await fundedAgent(t, 'busy', '10.00');
        for (let i = 0; i < 80; i++) expect((await pay(t, 'busy', busy.apiKey, { ...UNLISTED_API, amount: '0.01' })).status).toBe(200);
        const before = await chainState(t, first.agent.walletAddress);
        expect((await replay(t, first.wire, true)).result).toBe(first.txSignature);
        expect(await chainState(t, first.agent.walletAddress)).toEqual(before);
      },
      async () => {},
    );
  });

  it('never moves money twice over random runs of payments, restarts and replays through /rpc (fast-check)', async () => {
    const step = fc.oneof(
      fc.constant({ op: 'pay' as const }),
      fc.constant({ op: 'restart' as const }),
      fc.record({ op: fc.constant('replay' as const), pick: fc.nat(), skipPreflight: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const dataDir = tempDataDir();
        let t = await startCoffer({ dataDir });
        try {
          const agent = await fundedAgent(t, 'prop', '1.00');
          const landed: string[] = [];
          let restarts = 0;
          const rpcWire = async (txSignature: string) =>
            (await createSolanaRpc(`${t.url}/rpc`)
              .getTransaction(signature(txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0 })
              .send())!.transaction[0];
          for (const next of [{ op: 'pay' as const }, ...steps]) {
            if (next.op === 'pay') {
              const paid = await pay(t, 'prop', agent.apiKey, { ...UNLISTED_API, amount: '0.01' });
              expect(paid.status).toBe(200);
              landed.push(paid.body.txSignature);
            } else if (next.op === 'restart') {
              // A restart costs about a second: at most three a run.
              if (++restarts > 3) continue;
              await t.stop();
              t = await startCoffer({ dataDir });
            } else {
              const before = await chainState(t, agent.walletAddress);
              const answer = await replay(t, await rpcWire(landed[next.pick % landed.length]!), next.skipPreflight);
              if (next.skipPreflight) expect(answer.result).toBe(landed[next.pick % landed.length]);
              else expect(answer.error?.data?.err).toBe('AlreadyProcessed');
              expect(await chainState(t, agent.walletAddress)).toEqual(before);
            }
          }
          // Each payment moved its 0.01 once: the wallet holds the rest, the ledger agrees.
          expect((await chainState(t, agent.walletAddress)).payer).toBe(String(1_000_000 - 10_000 * landed.length));
        } finally {
          await t.stop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }),
      { numRuns: 8 },
    );
  });
});
