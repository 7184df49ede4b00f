/** A JSON-RPC error with Solana's codes (-32002 preflight failure, -32003 signature failure, ...). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
