import { describe, expect, it } from 'vitest';
import { fetchPaidOutput, payOutput } from '../../../../server/mcp/tool-outputs.js';

/** What a model reads of a held purchase in the tools' output schemas (server/mcp/tool-outputs.ts). */
describe('a held payment, as the output schemas say to follow it', () => {
  it("fetch_paid's approvalId names fetch_paid again, as its held answer does, not check_approval (helper 189)", () => {
    const said = fetchPaidOutput.shape.approvalId.description ?? '';
    expect(said).toContain('call fetch_paid again with the same arguments and this approvalId');
    expect(said).not.toContain('check_approval');
    // pay's is followed with check_approval: the receipt is in its result.
    expect(payOutput.shape.approvalId.description).toContain('check_approval');
  });
});
