import { describe, expect, it } from 'vitest';
import { aligned } from '../../../../server/cli/columns.js';
import { spendLines } from '../../../../server/cli/commands/activity.js';
import type { SpendRecord } from '../../../../server/wire/answers/payments.js';

const payment = (rail: 'sol' | 'base', protocol: 'x402' | 'coffer', resource: string | null): SpendRecord =>
  ({
    id: `pay_${rail}`,
    service: 'x402 seller',
    serviceId: 'x402',
    amount: '0.01',
    currency: 'USDC',
    description: 'a purchase',
    recipient: 'r',
    status: 'confirmed',
    timestamp: '2026-11-27T10:00:00.000Z',
    txSignature: null,
    protocol,
    resource,
    rail,
  }) satisfies SpendRecord;

describe('payments in aligned columns', () => {
  it('says what an x402 purchase bought in one column, whichever rail each line was paid on', () => {
    const lines = aligned(
      spendLines([
        payment('sol', 'x402', 'http://127.0.0.1:7404/weather?city=Lisbon'),
        payment('base', 'x402', 'http://127.0.0.1:7404/quote?symbol=SOL'),
      ]),
    ).split('\n');
    expect(lines[0]!.indexOf('x402 http')).toBeGreaterThan(0);
    expect(lines[0]!.indexOf('x402 http')).toBe(lines[1]!.indexOf('x402 http'));
    // Both rails among the lines: each says its own (a blank beside "on Base" says nothing).
    expect(lines[0]).toMatch(/\(confirmed\) {2}on Solana {2}x402 http/);
    expect(lines[1]).toMatch(/\(confirmed\) {2}on Base {4}x402 http/);
  });

  it('leaves out a column no line has words in: Solana alone, no rail named; one gap', () => {
    const [line] = aligned(spendLines([payment('sol', 'x402', 'http://127.0.0.1:7404/weather')])).split('\n');
    expect(line).toMatch(/\(confirmed\) {2}x402 http:\/\/127\.0\.0\.1:7404\/weather$/);
    const [plain] = aligned(spendLines([payment('sol', 'coffer', null)])).split('\n');
    expect(plain).toMatch(/\(confirmed\)$/);
    // Base alone: the rail is named, as it is not the one a Coffer always has.
    const [onBase] = aligned(spendLines([payment('base', 'coffer', null)])).split('\n');
    expect(onBase).toMatch(/\(confirmed\) {2}on Base$/);
  });
});
