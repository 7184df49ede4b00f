import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UNANSWERED_KEPT_MS } from '../../../../../server/x402/paywall/kept-answer.js';
import { facilitatorFeePayer, facilitatorSettles, offersExactOn } from '../../../../../server/x402/paywall/facilitator-kinds.js';

const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

describe('where a paywall offers x402 through a facilitator', () => {
  it('on an EVM chain where it settles exact there; on Solana only where it also names its fee payer', () => {
    const kinds = [
      { x402Version: 2, scheme: 'exact', network: 'eip155:790526' as const },
      { x402Version: 2, scheme: 'exact', network: SOLANA_DEVNET as `${string}:${string}` },
      { x402Version: 2, scheme: 'upto', network: 'eip155:84532' as const },
    ];
    expect(offersExactOn(kinds, 'eip155:790526')).toBe(true);
    expect(offersExactOn(kinds, 'eip155:84532')).toBe(false);
    expect(offersExactOn(kinds, SOLANA_DEVNET)).toBe(false);
    expect(offersExactOn([{ ...kinds[1]!, extra: { feePayer: 'FeePayer1111111111111111111111111111111111' } }], SOLANA_DEVNET)).toBe(true);
  });
});

describe('the accounts a facilitator sends from on an EVM chain', () => {
  it('are its `signers` for EVM chains, none where it names none', async () => {
    const kind = { x402Version: 2, scheme: 'exact', network: 'eip155:84532' as const };
    const facilitator = (signers: unknown) =>
      ({ getSupported: async () => ({ kinds: [kind], extensions: [], signers }) }) as unknown as Parameters<typeof facilitatorSettles>[0];
    const sender = '0x00000000000000000000000000000000000000fa';
    const solanaFeePayer = 'FeePayer1111111111111111111111111111111111';
    expect(
      await facilitatorSettles(facilitator({ 'eip155:*': [sender], 'solana:*': [solanaFeePayer] }), kind.network, () => {}).current(),
    ).toEqual({ senders: [sender] });
    for (const signers of [undefined, {}, { 'solana:*': [solanaFeePayer] }, { 'eip155:*': 'not a list' }]) {
      expect(await facilitatorSettles(facilitator(signers), kind.network, () => {}).current()).toEqual({ senders: [] });
    }
  });
});

describe('the fee payers a facilitator has on Solana', () => {
  it('are the one it names now and its `signers` for Solana, that one among them', async () => {
    const [named, other] = ['FeePayer1111111111111111111111111111111111', 'FeePayer2222222222222222222222222222222222'];
    const facilitator = (signers: unknown) =>
      ({
        getSupported: async () => ({
          kinds: [{ x402Version: 2, scheme: 'exact', network: SOLANA_DEVNET, extra: { feePayer: named } }],
          extensions: [],
          signers,
        }),
      }) as unknown as Parameters<typeof facilitatorFeePayer>[0];
    expect(await facilitatorFeePayer(facilitator({ 'solana:*': [other, named] }), SOLANA_DEVNET, () => {}).current()).toEqual({
      feePayer: named,
      feePayers: [other, named],
    });
    for (const signers of [undefined, {}, { 'eip155:*': [other] }, { 'solana:*': 'not a list' }]) {
      expect(await facilitatorFeePayer(facilitator(signers), SOLANA_DEVNET, () => {}).current()).toEqual({
        feePayer: named,
        feePayers: [named],
      });
    }
  });
});

describe('what a paywall logs of its facilitator', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const facilitatorOf = (
    getSupported: () => Promise<{ kinds: { x402Version: number; scheme: string; network: `${string}:${string}` }[] }>,
  ) => ({ getSupported, verify: async () => ({ isValid: false }), settle: async () => ({ success: false }) }) as never;

  it('one that answers without the network is said to have answered, not to be unreachable', async () => {
    const log: string[] = [];
    let asked = 0;
    const settles = facilitatorSettles(
      facilitatorOf(async () => {
        asked += 1;
        return { kinds: [{ x402Version: 2, scheme: 'exact', network: SOLANA_DEVNET as `${string}:${string}` }] };
      }),
      'eip155:790527',
      (line) => log.push(line),
    );
    expect(await settles.current()).toBeNull();
    // Asked again soon, not by each unpaid request (one still starting up may name nothing yet), said once.
    expect(await settles.current()).toBeNull();
    await vi.advanceTimersByTimeAsync(UNANSWERED_KEPT_MS + 1);
    expect(await settles.current()).toBeNull();
    await vi.advanceTimersByTimeAsync(UNANSWERED_KEPT_MS + 1);
    expect(await settles.current()).toBeNull();
    expect([asked, log]).toEqual([
      3,
      ['paywall: the x402 facilitator answered, but it does not settle exact payments on eip155:790527: its 402s offer no x402 there'],
    ]);
  });

  it('one that does not answer is said to be unreachable', async () => {
    const log: string[] = [];
    let asked = 0;
    const settles = facilitatorSettles(
      facilitatorOf(async () => {
        asked += 1;
        throw new Error('fetch failed');
      }),
      'eip155:790527',
      (line) => log.push(line),
    );
    expect(await settles.current()).toBeNull();
    // No answer is asked again soon, and said once until the facilitator says something else.
    await vi.advanceTimersByTimeAsync(UNANSWERED_KEPT_MS + 1);
    expect(await settles.current()).toBeNull();
    expect([asked, log]).toEqual([2, ['paywall: the x402 facilitator could not be asked: fetch failed']]);
  });
});
