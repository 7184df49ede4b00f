import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANSWER_WAIT_MS, KEPT_MS, UNANSWERED_KEPT_MS, keptAnswer } from '../../../../../server/x402/paywall/kept-answer.js';

/** A party whose answers come when the test says: each question waits for `answerNext`. */
function slowParty<T>() {
  const waiting: ((answer: T | null) => void)[] = [];
  let asked = 0;
  return {
    ask: () => {
      asked += 1;
      return new Promise<T | null>((resolve) => waiting.push(resolve));
    },
    answerNext: (answer: T | null) => waiting.shift()!(answer),
    asked: () => asked,
    open: () => waiting.length,
  };
}

/** What a promise has settled to so far ('waiting' while it has not). */
function watched<T>(promise: Promise<T>) {
  const seen: { value: T | 'waiting' } = { value: 'waiting' };
  void promise.then((value) => (seen.value = value));
  return seen;
}

describe('an answer a paywall asks another party for', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds no unpaid request past a short wait, nor makes the next ones wait again for the same question', async () => {
    const party = slowParty<string>();
    const kept = keptAnswer(party.ask);
    const first = watched(kept.current());
    await vi.advanceTimersByTimeAsync(ANSWER_WAIT_MS - 1);
    expect(first.value).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    // Not known yet: this 402 goes out without it.
    expect(first.value).toBeNull();
    // The question still out is not asked again, and no longer waited for.
    const second = watched(kept.current());
    await vi.advanceTimersByTimeAsync(0);
    expect([second.value, party.asked()]).toEqual([null, 1]);
    // Its answer, once it comes, is kept.
    party.answerNext('fee payer');
    await vi.advanceTimersByTimeAsync(0);
    expect(await kept.current()).toBe('fee payer');
    expect(party.asked()).toBe(1);
  });

  it('keeps what was said a minute, then asks again; what was said stands while the new answer is slow to come', async () => {
    const party = slowParty<string>();
    const kept = keptAnswer(party.ask);
    const known = kept.current();
    party.answerNext('fee payer');
    expect(await known).toBe('fee payer');
    await vi.advanceTimersByTimeAsync(KEPT_MS);
    expect([await kept.current(), party.asked()]).toEqual(['fee payer', 1]);
    await vi.advanceTimersByTimeAsync(1);
    const again = watched(kept.current());
    await vi.advanceTimersByTimeAsync(ANSWER_WAIT_MS);
    expect([again.value, party.asked()]).toEqual(['fee payer', 2]);
    party.answerNext('another');
    await vi.advanceTimersByTimeAsync(0);
    expect(await kept.current()).toBe('another');
  });

  it('keeps no usable answer a moment only: unpaid requests do not ask the party each time', async () => {
    const party = slowParty<string>();
    const kept = keptAnswer(party.ask);
    const first = kept.current();
    party.answerNext(null);
    expect(await first).toBeNull();
    for (let request = 0; request < 20; request += 1) expect(await kept.current()).toBeNull();
    expect(party.asked()).toBe(1);
    await vi.advanceTimersByTimeAsync(UNANSWERED_KEPT_MS + 1);
    const later = kept.current();
    party.answerNext('fee payer');
    expect([await later, party.asked()]).toEqual(['fee payer', 2]);
  });

  it('after a refusal asks again at once, but not again for each refusal that follows', async () => {
    const party = slowParty<string>();
    const kept = keptAnswer(party.ask);
    const first = kept.current();
    party.answerNext('old key');
    expect(await first).toBe('old key');
    kept.refused();
    const afterRefusal = kept.current();
    party.answerNext('new key');
    expect([await afterRefusal, party.asked()]).toEqual(['new key', 2]);
    for (let refusal = 0; refusal < 5; refusal += 1) {
      kept.refused();
      expect(await kept.current()).toBe('new key');
    }
    expect(party.asked()).toBe(2);
  });

  it('after a refusal does not ask again while a question is still out', async () => {
    const party = slowParty<string>();
    const kept = keptAnswer(party.ask);
    void kept.current();
    await vi.advanceTimersByTimeAsync(ANSWER_WAIT_MS);
    for (let refusal = 0; refusal < 3; refusal += 1) {
      kept.refused();
      expect(await kept.current()).toBeNull();
      await vi.advanceTimersByTimeAsync(6_000);
    }
    expect([party.asked(), party.open()]).toEqual([1, 1]);
  });
});
