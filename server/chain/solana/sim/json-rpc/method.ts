import type { z } from 'zod';
import type { SimLedger } from '../ledger.js';
import { createSimFaucet } from '../faucet.js';

export const API_VERSION = '2.2.0';

/** What every method of the embedded chain's JSON-RPC runs against. */
export interface SimRpcScope {
  ledger: SimLedger;
  faucet: ReturnType<typeof createSimFaucet>;
  /** A value as the methods read at a slot answer it: with the slot it was read at. */
  withContext(value: unknown): { context: { slot: bigint; apiVersion: string }; value: unknown };
}

export function simRpcScope(ledger: SimLedger): SimRpcScope {
  return {
    ledger,
    faucet: createSimFaucet(ledger),
    withContext: (value) => ({ context: { slot: ledger.slot, apiVersion: API_VERSION }, value }),
  };
}

/** One method: its parameters read, then what it answers (or an RpcError it throws). */
export interface SimRpcMethod {
  read(params: unknown[]): { ok: true; run(scope: SimRpcScope): unknown } | { ok: false; problem: string };
}

/** A method whose positional parameters are checked by a schema before it runs; the first issue is the problem told. */
export function rpcMethod<Params extends z.ZodType>(
  params: Params,
  run: (scope: SimRpcScope, args: z.output<Params>) => unknown,
): SimRpcMethod {
  return {
    read(values) {
      const parsed = params.safeParse(values);
      if (!parsed.success) return { ok: false, problem: parsed.error.issues[0]?.message ?? 'invalid' };
      return { ok: true, run: (scope) => run(scope, parsed.data) };
    },
  };
}
