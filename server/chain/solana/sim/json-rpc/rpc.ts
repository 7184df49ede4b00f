import { z } from 'zod';
import type { SimLedger } from '../ledger.js';
import { accountMethods } from './account-methods.js';
import { blockMethods } from './block-methods.js';
import { clusterMethods } from './cluster-methods.js';
import { RpcError } from './error.js';
import { simRpcScope, type SimRpcMethod, type SimRpcScope } from './method.js';
import { transactionMethods } from './transaction-methods.js';

/** Every method the embedded chain answers, by name: each reads its own parameters and runs. */
const METHODS: Readonly<Record<string, SimRpcMethod>> = { ...clusterMethods, ...accountMethods, ...transactionMethods, ...blockMethods };

const requestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(200), z.number(), z.null()]).optional(),
  method: z.string().max(100),
  params: z.array(z.unknown()).max(10).optional(),
});

type Answer = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: unknown };

/**
 * Solana JSON-RPC over the embedded chain: what `@solana/kit`'s `createSolanaRpc`, Coffer's own RPC
 * adapter and the x402 packages (client and facilitator) ask a cluster. Everything here is final at
 * once, so every commitment is answered as `finalized`. Transport-agnostic: a parsed request body in,
 * the response body out (the HTTP route and the test cluster both serve it).
 */
export function createSimRpc(ledger: SimLedger) {
  const scope = simRpcScope(ledger);
  return {
    /** Answers one request or a batch, as JSON text (u64 values written exactly, as a node does). */
    handle(body: unknown): string {
      if (Array.isArray(body)) {
        if (body.length === 0 || body.length > 100) return toJson(failure(null, -32600, 'Invalid request'));
        return toJson(body.map((request) => callOne(scope, request)));
      }
      return toJson(callOne(scope, body));
    },
    methods: Object.keys(METHODS),
  };
}

export type SimRpc = ReturnType<typeof createSimRpc>;

/** One request: its envelope read, its method found, its parameters read, then run; every failure a JSON-RPC error. */
function callOne(scope: SimRpcScope, request: unknown): Answer {
  const parsed = requestSchema.safeParse(request);
  if (!parsed.success) return failure(null, -32600, 'Invalid request');
  const { id, method, params } = parsed.data;
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (handler === undefined) return failure(id, -32601, `Method not found: ${method}`);
  const read = handler.read(params ?? []);
  if (!read.ok) return failure(id, -32602, `Invalid params: ${read.problem}`);
  try {
    return { jsonrpc: '2.0', id, result: read.run(scope) };
  } catch (error) {
    if (error instanceof RpcError)
      return {
        jsonrpc: '2.0',
        id,
        error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
      };
    return failure(id, -32603, `Internal error: ${(error as Error).message}`);
  }
}

const failure = (id: unknown, code: number, message: string): Answer => ({ jsonrpc: '2.0', id, error: { code, message } });

/** JSON with u64 values (bigints) written as plain numbers, exactly, as a node writes them. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `\u0000${v.toString()}\u0000` : v)).replace(
    /"\\u0000(-?\d+)\\u0000"/g,
    '$1',
  );
}
