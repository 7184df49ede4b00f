/* eslint-disable @typescript-eslint/no-explicit-any -- JSON-RPC messages are read loosely on purpose: the tests assert their shape */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSimRpcSubscriptions } from '../../../../../../../server/chain/solana/sim/json-rpc/subscriptions.js';
import type { SimLedger } from '../../../../../../../server/chain/solana/sim/ledger.js';

/**
 * The subscription protocol on its own, over a chain that the test moves: answers, notifications,
 * one-shot signatures, unsubscribing, and bad requests answered as JSON-RPC errors.
 */
const SIGNATURE = '5'.repeat(88);
const KEY = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';

function fakeLedger() {
  const state = { slot: 10n, landed: new Map<string, { slot: bigint; err: unknown }>(), lamports: 5n };
  const ledger = {
    get slot() {
      return state.slot;
    },
    findTransaction: (signature: string) => {
      const found = state.landed.get(signature);
      return found === undefined ? null : { slot: found.slot, meta: { err: found.err } };
    },
    account: () => ({
      exists: true,
      lamports: state.lamports,
      programAddress: '11111111111111111111111111111111',
      data: new Uint8Array(),
      executable: false,
      space: 0n,
    }),
  };
  return { state, ledger: ledger as unknown as SimLedger };
}

describe('sim RPC subscriptions', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers subscriptions with ids and notifies what changes: a signature once, every new slot, an account that changed', () => {
    const { state, ledger } = fakeLedger();
    const sent: any[] = [];
    const session = createSimRpcSubscriptions(ledger).open((text) => sent.push(JSON.parse(text)));
    session.receive(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'signatureSubscribe', params: [SIGNATURE, { commitment: 'confirmed' }] }),
    );
    session.receive(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'slotSubscribe' }));
    session.receive(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'accountSubscribe', params: [KEY, { encoding: 'base64' }] }));
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: 0 },
      { jsonrpc: '2.0', id: 2, result: 1 },
      { jsonrpc: '2.0', id: 3, result: 2 },
    ]);
    vi.advanceTimersByTime(200);
    expect(sent).toHaveLength(3); // nothing changed: nothing said

    state.landed.set(SIGNATURE, { slot: 11n, err: null });
    state.slot = 11n;
    state.lamports = 7n;
    vi.advanceTimersByTime(60);
    const notes = sent.slice(3);
    expect(notes).toEqual(
      expect.arrayContaining([
        {
          jsonrpc: '2.0',
          method: 'signatureNotification',
          params: { result: { context: { slot: 11 }, value: { err: null } }, subscription: 0 },
        },
        { jsonrpc: '2.0', method: 'slotNotification', params: { result: { parent: 10, root: 11, slot: 11 }, subscription: 1 } },
        expect.objectContaining({ method: 'accountNotification', params: expect.objectContaining({ subscription: 2 }) }),
      ]),
    );
    expect(notes.find((note) => note.method === 'accountNotification').params.result.value.lamports).toBe(7);
    // The signature's subscription ended with its notification; the others go on until unsubscribed.
    state.slot = 12n;
    vi.advanceTimersByTime(60);
    expect(sent.slice(6).map((note) => note.method)).toEqual(['slotNotification']);
    session.receive(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'slotUnsubscribe', params: [1] }));
    session.receive(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'signatureUnsubscribe', params: [0] }));
    expect(sent.slice(7)).toEqual([
      { jsonrpc: '2.0', id: 4, result: true },
      { jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'Invalid subscription id' } },
    ]);
    state.slot = 13n;
    vi.advanceTimersByTime(60);
    expect(sent).toHaveLength(9);
    session.close();
  });

  it('answers bad requests with JSON-RPC errors and subscribes to nothing', () => {
    const { ledger } = fakeLedger();
    const sent: any[] = [];
    const session = createSimRpcSubscriptions(ledger).open((text) => sent.push(JSON.parse(text)));
    session.receive('{not json');
    session.receive(JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'slotSubscribe' }));
    session.receive(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'logsSubscribe', params: ['all'] }));
    session.receive(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'accountSubscribe', params: ['not an address'] }));
    session.receive(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'signatureSubscribe', params: [] }));
    expect(sent.map((answer) => [answer.id, answer.error?.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [2, -32601],
      [3, -32602],
      [4, -32602],
    ]);
    session.close();
  });

  it('never throws into the socket: an encoding it cannot give is refused, a read that fails ends its subscription with an error', () => {
    const { state, ledger } = fakeLedger();
    const sent: any[] = [];
    const session = createSimRpcSubscriptions(ledger).open((text) => sent.push(JSON.parse(text)));
    expect(() =>
      session.receive(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params: [KEY, { encoding: 'base64+zstd' }] })),
    ).not.toThrow();
    expect(sent[0]).toMatchObject({ id: 1, error: { code: -32602 } });
    session.receive(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'signatureSubscribe', params: [SIGNATURE] }));
    (ledger as unknown as { findTransaction: () => never }).findTransaction = () => {
      throw new Error('the disk is gone');
    };
    expect(() => vi.advanceTimersByTime(60)).not.toThrow();
    expect(sent.at(-1)).toMatchObject({
      error: { code: -32603, message: expect.stringMatching(/subscription 0 ended: the disk is gone/) },
    });
    // Ended: nothing more is said for it.
    state.landed.set(SIGNATURE, { slot: 11n, err: null });
    vi.advanceTimersByTime(60);
    expect(sent).toHaveLength(3);
    session.close();
  });
});
