import { describe, expect, it } from 'vitest';
import { HttpRequestError, InvalidInputRpcError, RpcRequestError, UnknownRpcError } from 'viem';
import { CofferError } from '../../../../../server/wire/errors.js';
import { nodeErrorWords, nodeUnanswered } from '../../../../../server/chain/evm/node-errors.js';

describe("a node's failure in words", () => {
  it('is one short line, not viem’s message with the request it made', () => {
    const unreached = new HttpRequestError({
      url: 'http://127.0.0.1:9/',
      body: { method: 'eth_sendRawTransaction', params: ['0x02f8'] },
      details: 'fetch failed',
    });
    expect(unreached.message).toMatch(/\n/);
    expect(nodeErrorWords(unreached)).toBe('HTTP request failed (fetch failed)');
    const refused = new RpcRequestError({ url: 'http://127.0.0.1:9/', body: {}, error: { code: -32000, message: 'nonce too low' } });
    expect(nodeErrorWords(refused)).toBe('RPC Request failed (nonce too low)');
    expect(nodeErrorWords(new Error('socket hang up'))).toBe('socket hang up');
    // A short message of two lines, kept to one.
    const invalid = new InvalidInputRpcError(
      new RpcRequestError({ url: 'http://127.0.0.1:9/', body: {}, error: { code: -32000, message: 'header not found' } }),
    );
    expect(nodeErrorWords(invalid)).toBe(
      'Missing or invalid parameters. Double check you have provided the correct parameters (header not found)',
    );
  });

  it("says Coffer's own refusal on the way to the node as it is, however viem wrapped it", () => {
    const wrongChain = new CofferError(
      'chain_unavailable',
      'COFFER_BASE_RPC serves chain 8453; devnet goes with base-sepolia (chain 84532)',
    );
    const wrapped = new UnknownRpcError(wrongChain);
    expect(nodeErrorWords(wrapped)).toBe(wrongChain.message);
    expect(nodeUnanswered('base-sepolia', 'a USDC balance', wrapped)).toBe(wrongChain);
  });

  it('names the network and what it did not answer, as chain_unavailable', () => {
    const error = nodeUnanswered('base-sepolia', 'the USDC balances', new Error('socket hang up'));
    expect([error.code, error.message]).toEqual([
      'chain_unavailable',
      'the base-sepolia node did not answer the USDC balances: socket hang up',
    ]);
  });
});
