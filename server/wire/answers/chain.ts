/** The /v1 answer of the chain lookup paid APIs verify receipts with (public chain data, no key). */

/** One USDC transfer as the chain holds it; `amount` in micro-USDC and `slot` as integer strings. */
export type ChainTransfer = {
  txSignature: string;
  succeeded: boolean;
  error: string | null;
  from: string;
  to: string | null;
  toTokenAccount: string;
  mint: string;
  amount: string;
  memo: string | null;
  blockTime: number | null;
  slot: string | null;
};

/** GET /v1/chain/transactions/:signature. */
export type TransactionLookup = {
  network: string;
  usdcMint: string;
  transfer: ChainTransfer;
};
