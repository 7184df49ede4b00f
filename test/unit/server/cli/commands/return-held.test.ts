import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { returnFunds } from '../../../../../server/cli/commands/agent-funds.js';
import { fakeCoffer } from '../../../../fixtures/fake-coffer.js';

/**
 * A payment held for the owner's yes is not reserved against the wallet (docs/API.md, return): a
 * return of everything leaves it nothing to be paid from, and the yes then fails insufficient_funds.
 * The return says so, with the command that funds it again, where a held payment on that rail
 * waits and the wallet no longer holds it.
 */
let coffer: Awaited<ReturnType<typeof fakeCoffer>> | null = null;
afterEach(async () => {
  await coffer?.close();
  coffer = null;
});

const held = (agentId: string, amount: string, rail: string) => ({
  approvalId: `apr_${agentId}_${amount}`,
  agentId,
  kind: 'payment',
  status: 'pending',
  request: { service: 'my-api', amount, recipient: 'r', rail },
});

async function returned(balance: string, waiting: unknown[]): Promise<string> {
  coffer = await fakeCoffer((_request, path) =>
    path === '/v1/agents/researcher/return'
      ? {
          status: 200,
          body: { agentId: 'researcher', returnId: 'alc_1', amount: '2.00', currency: 'USDC', rail: 'base', txSignature: '0x1', balance },
        }
      : path === '/v1/approvals'
        ? { status: 200, body: { approvals: waiting } }
        : { status: 404, body: { code: 'not_found', error: 'no' } },
  );
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  expect(await returnFunds({ agentId: 'researcher', rail: 'base', dataDir: coffer.dir }, out)).toBe(0);
  await coffer.close();
  coffer = null;
  return text;
}

describe('coffer return, while a payment waits for the yes', () => {
  it('says what a yes would now lack, on that rail, and how to fund it again', async () => {
    const text = await returned('0.00', [
      held('researcher', '0.40', 'base'),
      held('researcher', '0.10', 'sol'),
      held('other', '5.00', 'base'),
    ]);
    expect(text).toContain('Returned 2.00 USDC from researcher to the treasury');
    expect(text).toMatch(
      /1 payment of researcher waits for your yes on Base \(0\.40 USDC\), more than its wallet there holds now \(0\.00\): a yes fails \(insufficient_funds\) unless you fund it again \([^()]*allocate researcher 0\.40 --rail base --data-dir [^()]+\), or deny it \([^()]*deny apr_researcher_0\.40 --data-dir [^()]+\)\.\n/,
    );
  });

  it('says nothing where none waits on that rail, or the wallet still holds what waits', async () => {
    expect(await returned('0.00', [held('researcher', '0.10', 'sol')])).not.toContain('waits for your yes');
    expect(await returned('0.50', [held('researcher', '0.40', 'base')])).not.toContain('waits for your yes');
  });
});
