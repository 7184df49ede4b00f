import express, { type Router } from 'express';
import { jsonRpcBodyRefusal } from '../../../json-rpc-body.js';
import type { SimRpc } from './rpc.js';

/**
 * `POST /rpc`: the embedded chain's Solana JSON-RPC (sim only), for Solana clients on this machine
 * (`@solana/kit`'s createSolanaRpc, an x402 client or facilitator, a wallet). It stands behind the same
 * loopback Host/Origin guard as /v1 and needs no key: it holds none, and moving test USDC takes the
 * signature of a wallet that holds it. Errors are JSON-RPC errors, a body that is not JSON included.
 */
export function simRpcRoute(rpc: SimRpc): Router {
  const router = express.Router();
  router.post('/rpc', express.text({ type: () => true, limit: '256kb' }), (req, res) => {
    res.type('application/json');
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      res.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    res.send(rpc.handle(body));
  });
  // A body the parser refuses (too large, another charset) is a JSON-RPC error too.
  router.use('/rpc', jsonRpcBodyRefusal);
  return router;
}
