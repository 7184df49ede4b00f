import { describe, expect, it } from 'vitest';
import { aligned } from '../../../../server/cli/columns.js';
import { spendCells } from '../../../../server/cli/commands/activity.js';
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
    const lines = aligned([
      spendCells(payment('sol', 'x402', 'http://127.0.0.1:7404/weather?city=Lisbon')),
      spendCells(payment('base', 'x402', 'http://127.0.0.1:7404/quote?symbol=SOL')),
    ]).split('\n');
    expect(lines[0]!.indexOf('x402 http')).toBeGreaterThan(0);
    expect(lines[0]!.indexOf('x402 http')).toBe(lines[1]!.indexOf('x402 http'));
  });

  it('names the rail beside the amount on every line, Solana alone too, as a balance does', () => {
    const [both, onBase] = aligned([spendCells(payment('sol', 'coffer', null)), spendCells(payment('base', 'coffer', null))]).split('\n');
    expect(both).toMatch(/ {2}0\.01 USDC {2}on Solana {2}x402 seller {2}\(confirmed\)$/);
    expect(onBase).toMatch(/ {2}0\.01 USDC {2}on Base {4}x402 seller {2}\(confirmed\)$/);
    const [alone] = aligned([spendCells(payment('sol', 'coffer', null))]).split('\n');
    expect(alone).toMatch(/ {2}0\.01 USDC {2}on Solana {2}x402 seller {2}\(confirmed\)$/);
  });

  it('leaves out a column no line has words in: one gap, not two', () => {
    const [line] = aligned([spendCells(payment('sol', 'x402', 'http://127.0.0.1:7404/weather'))]).split('\n');
    expect(line).toMatch(/\(confirmed\) {2}x402 http:\/\/127\.0\.0\.1:7404\/weather$/);
    const [plain] = aligned([spendCells(payment('sol', 'coffer', null))]).split('\n');
    expect(plain).toMatch(/\(confirmed\)$/);
  });
});
