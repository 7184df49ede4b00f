import { describe, expect, it } from 'vitest';
import type { ServerContext } from '@modelcontextprotocol/server';
import { OwnerDecisions } from '../../../../server/mcp/owner-decision.js';
import type { Approval } from '../../../../server/client/wire-types.js';

const COFFER = 'http://127.0.0.1:7402';
const approval = {
  approvalId: 'apr_123',
  request: { reason: { message: 'above ask-above 0.00' } },
  expiresAt: '2026-11-25T00:00:00.000Z',
} as unknown as Approval;

/** The handler context of a returning round: what the seam decoded from the echoed state. */
const returning = (state: unknown) => ({ mcpReq: { requestState: () => state } }) as unknown as ServerContext;
const anyCtx = {} as ServerContext;

/** A first round's answer: the embedded URL request and the state the host echoes. */
async function parked(decisions: OwnerDecisions, tool: string, work: Promise<object>) {
  const result = (await decisions.park(tool, work, approval)) as unknown as {
    resultType: string;
    inputRequests: Record<string, { method: string; params: { mode: string; url: string; message: string } }>;
    requestState: string;
  };
  return result;
}

describe('OwnerDecisions: a held payment followed between the rounds of a host that opens URLs', () => {
  it('hands the host the decision page of that request, with why it waits, and a state only it can read back', async () => {
    const decisions = new OwnerDecisions(COFFER);
    const result = await parked(decisions, 'fetch_paid', Promise.resolve({ status: 200 }));
    expect(result.resultType).toBe('input_required');
    const [request] = Object.values(result.inputRequests);
    expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'url', url: `${COFFER}/#/approvals/apr_123` } });
    expect(request!.params.message).toMatch(/above ask-above 0\.00.*nothing is paid until then/);
    const state = await decisions.verify(result.requestState, anyCtx);
    expect(state).toMatchObject({ tool: 'fetch_paid', approvalId: 'apr_123', purchaseId: expect.any(String) });
  });

  it('refuses a state the host altered, and one another bridge sealed', async () => {
    const decisions = new OwnerDecisions(COFFER);
    const { requestState } = await parked(decisions, 'fetch_paid', Promise.resolve({}));
    const [version, body, mac] = requestState.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as { p: { approvalId: string } };
    payload.p.approvalId = 'apr_other';
    const altered = [version, Buffer.from(JSON.stringify(payload)).toString('base64url'), mac].join('.');
    await expect(decisions.verify(altered, anyCtx)).rejects.toThrow();
    await expect(new OwnerDecisions(COFFER).verify(requestState, anyCtx)).rejects.toThrow();
  });

  it('the returning round gets the one purchase: its answer once, then it is no longer followed', async () => {
    const decisions = new OwnerDecisions(COFFER);
    const { requestState } = await parked(decisions, 'fetch_paid', Promise.resolve({ status: 200, body: 'paid' }));
    const state = await decisions.verify(requestState, anyCtx);
    expect(decisions.resumed('fetch_paid', returning(undefined))).toBeUndefined();
    await expect(decisions.resumed('fetch_paid', returning(state))!.work).resolves.toEqual({ status: 200, body: 'paid' });
    await expect(decisions.resumed('fetch_paid', returning(state))!.work).rejects.toMatchObject({
      code: 'purchase_not_followed',
      message: expect.stringMatching(/check_approval.*apr_123|apr_123.*check_approval/),
    });
  });

  it("another tool's state follows nothing, and leaves the purchase to its own call", async () => {
    const decisions = new OwnerDecisions(COFFER);
    const { requestState } = await parked(decisions, 'pay', Promise.resolve({ status: 'confirmed' }));
    const state = await decisions.verify(requestState, anyCtx);
    await expect(decisions.resumed('fetch_paid', returning(state))!.work).rejects.toMatchObject({ code: 'purchase_not_followed' });
    await expect(decisions.resumed('pay', returning(state))!.work).resolves.toEqual({ status: 'confirmed' });
  });

  it('a purchase that fails while parked is no unhandled rejection: the returning round gets the refusal', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const decisions = new OwnerDecisions(COFFER);
      const refused = Object.assign(new Error('the owner said no'), { code: 'payment_denied' });
      const { requestState } = await parked(decisions, 'fetch_paid', Promise.reject(refused));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      const state = await decisions.verify(requestState, anyCtx);
      await expect(decisions.resumed('fetch_paid', returning(state))!.work).rejects.toBe(refused);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
