import type { NextFunction, Request, Response } from 'express';

/**
 * What an embedded chain's JSON-RPC route (Solana's `/rpc`, the EVM's `/evm-rpc`) answers to a body
 * its parser refused (over 256 kB, another charset): a JSON-RPC error, as a node answers one.
 */
export function jsonRpcBodyRefusal(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(error);
  const tooLarge = (error as { type?: string }).type === 'entity.too.large';
  res.status(tooLarge ? 413 : 400).json({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: tooLarge ? 'Invalid request: the body is over 256 kB' : 'Invalid request: the body cannot be read',
    },
  });
}
