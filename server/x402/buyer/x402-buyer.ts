import { x402Client, x402HTTPClient } from '@x402/core/client';
import { parsePaymentRequired } from '@x402/core/schemas';
import { onePaymentRequired } from '../payment-required.js';
import { CofferError } from '../../wire/errors.js';
import type { X402Buyer, X402Names, X402Offer, X402Requirement, X402Signed } from '../../core/ports/x402.js';
import type { Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import type { WalletSigners } from '../../chain/solana/signers.js';
import type { EvmSigners } from '../../chain/evm/signers.js';
import { readSignIn, signIn } from './sign-in.js';
import { toRequirement } from './offer-terms.js';

/** What pays x402 on one rail: its network's x402 names, and how an offer's requirement is signed there. */
export interface X402RailPayments {
  networks: X402Names;
  /** `paymentId`: the payment's id, which Base's authorization nonce commits to. */
  sign(offer: X402Offer, requirement: X402Requirement, payer: string, paymentId: string): Promise<X402Signed>;
  /** Why `sign` would refuse the requirement whatever the payer; null where it would not, or cannot tell now. */
  signingRefusal?(requirement: X402Requirement): Promise<string | null>;
}

/** A transaction's id as a seller reports it: a Solana signature (base58) or an EVM transaction hash. */
const TRANSACTION_ID = /^([1-9A-HJ-NP-Za-km-z]{64,88}|0x[0-9a-fA-F]{64})$/;

/**
 * Coffer's x402 buyer, built on the official packages: `@x402/core` reads the 402 (v1 body or v2
 * PAYMENT-REQUIRED header), encodes the retry header and reads the seller's PAYMENT-RESPONSE; each
 * rail's module signs with the agent's account there and reads back what it signed
 * (solana-payment.ts, base-payment.ts). Sign-in (SIWx) proves a wallet on either rail (sign-in.ts).
 */
export function createX402Buyer(options: {
  /** The wallets' keys, which sign in (SIWx): Solana's, and their EVM accounts where the Base rail is open. */
  vault: WalletSigners;
  evm: EvmSigners | null;
  sol: X402RailPayments | null;
  base: X402RailPayments | null;
}): X402Buyer {
  const rails = { sol: options.sol, base: options.base };
  return {
    networks: { sol: rails.sol?.networks ?? null, base: rails.base?.networks ?? null },
    readOffer: readX402Offer,
    readSignIn,
    signIn: (offer, chainId, wallet, url, rail) => signIn({ solana: options.vault, evm: options.evm }, offer, chainId, wallet, url, rail),
    sign: (offer, requirement, payer, rail: Rail, paymentId) => {
      const payments = rails[rail];
      if (payments === null) throw new CofferError('unsupported_offer', `x402 is not paid on the ${railName(rail)} rail here`);
      return payments.sign(offer, requirement, payer, paymentId);
    },
    signingRefusal: async (requirement, rail) => (await rails[rail]?.signingRefusal?.(requirement)) ?? null,
    readSettlement: readX402Settlement,
  };
}

/** A seller's 402 as x402 terms (v1 body or v2 PAYMENT-REQUIRED header); null when it is no x402 offer. */
function readX402Offer(answer: { headers: Record<string, string>; body: unknown }): X402Offer | null {
  let raw: unknown;
  const headers = new Headers(answer.headers);
  // A header sent more than once (payment-required.ts onePaymentRequired): the same terms twice are
  // those terms; different ones are no offer Coffer could choose from.
  const sent = headers.get('payment-required');
  if (sent !== null) {
    const one = onePaymentRequired(sent);
    if (one === null && sent.includes(',')) {
      throw new CofferError(
        'unreadable_402',
        `the x402 offer does not follow the protocol: its PAYMENT-REQUIRED header is sent ${sent.split(',').filter((copy) => copy.trim() !== '').length} times with different terms`,
      );
    }
    if (one !== null) headers.set('payment-required', one);
  }
  try {
    raw = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((name) => headers.get(name), answer.body);
  } catch {
    // A v2 header there that is not an offer is a malformed offer, not the absence of one.
    if (headers.has('payment-required')) {
      throw new CofferError(
        'unreadable_402',
        'the x402 offer does not follow the protocol: its PAYMENT-REQUIRED header is not base64-encoded JSON',
      );
    }
    return null;
  }
  const parsed = parsePaymentRequired(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // The field named (accepts[0].maxTimeoutSeconds: Required), so a seller knows what to mend.
    const where =
      issue === undefined
        ? ''
        : issue.path
            .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
            .join('')
            .replace(/^\./, '');
    throw new CofferError(
      'unreadable_402',
      `the x402 offer does not follow the protocol: ${where === '' ? '' : `${where}: `}${issue?.message ?? 'invalid'}`,
    );
  }
  const required = parsed.data;
  const accepts: unknown[] = required.accepts;
  return { x402Version: required.x402Version, requirements: accepts.map(toRequirement), source: required };
}

/** The transaction a seller's answer says it settled (its PAYMENT-RESPONSE), or null. */
function readX402Settlement(headers: Record<string, string>): string | null {
  try {
    const all = new Headers(headers);
    const settled = new x402HTTPClient(new x402Client()).getPaymentSettleResponse((name) => all.get(name));
    return settled.success && typeof settled.transaction === 'string' && TRANSACTION_ID.test(settled.transaction)
      ? settled.transaction
      : null;
  } catch {
    return null;
  }
}
