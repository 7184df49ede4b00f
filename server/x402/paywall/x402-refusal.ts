/** Why a paywall refused an x402 payment: its code (the 402's `code`) and the reason in words. */
export type X402Refusal = { ok: false; code: X402RefusalCode; reason: string };

export type X402RefusalCode =
  'invalid_payment' | 'unknown_nonce' | 'wrong_resource' | 'receipt_expired' | 'receipt_already_used' | 'payment_rejected';

export const refuse = (code: X402RefusalCode, reason: string): X402Refusal => ({ ok: false, code, reason });
