import express, { type Router } from 'express';
import { jsonRpcBodyRefusal } from '../../json-rpc-body.js';
import { JsonRpcError } from './edr-node.js';
import type { EmbeddedEvm } from './chain.js';

/** Where the embedded EVM chain's JSON-RPC is served beside /v1. */
export const EVM_RPC_PATH = '/evm-rpc';

type Call = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

/**
 * `POST /evm-rpc`: the embedded EVM chain's Ethereum JSON-RPC (sim only), for EVM clients on this
 * machine (viem's `http()`, an x402 facilitator, a wallet), single calls and batches. Behind the same
 * loopback Host/Origin guard as /v1, with no key: it holds none, and moving test USDC takes the
 * signature of a wallet that holds it. What it answers is the chain's (rpc-methods.ts); every error is
 * a JSON-RPC error, a body that is not JSON included.
 */
export function evmRpcRoute(evm: EmbeddedEvm): Router {
  const router = express.Router();
  const answer = async (call: Call) => {
    const id = typeof call.id === 'string' || typeof call.id === 'number' ? call.id : null;
    if (typeof call.method !== 'string' || (call.params !== undefined && !Array.isArray(call.params))) {
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    }
    try {
      return { jsonrpc: '2.0', id, result: await evm.request(call.method, (call.params as unknown[] | undefined) ?? []) };
    } catch (error) {
      const { code, message, data } =
        error instanceof JsonRpcError ? error : { code: -32603, message: `Internal error: ${(error as Error).message}`, data: undefined };
      return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
    }
  };
  router.post(EVM_RPC_PATH, express.text({ type: () => true, limit: '256kb' }), async (req, res) => {
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      res.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (Array.isArray(body)) {
      if (body.length === 0 || body.length > 100) {
        res.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: a batch holds 1 to 100 calls' } });
        return;
      }
      // In order: a batch's sends run one after another, as they would on a node.
      const answers = [];
      for (const call of body) answers.push(await answer(typeof call === 'object' && call !== null ? (call as Call) : {}));
      res.json(answers);
      return;
    }
    res.json(await answer(typeof body === 'object' && body !== null ? (body as Call) : {}));
  });
  router.use(EVM_RPC_PATH, jsonRpcBodyRefusal);
  return router;
}
