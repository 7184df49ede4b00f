/**
 * Paying x402 on Base with the official packages: `@x402/evm`'s exact scheme (v2, and v1 where x402
 * names the chain) signs an EIP-3009 `transferWithAuthorization` with the agent's account from the
 * vault; the seller's facilitator sends it and pays its gas, so the agent never holds ETH. What the
 * package signed is read back before it is handed out: this chain's USDC (the token's own EIP-712
 * domain and chain id), exactly the amount asked, from the agent to the seller's `payTo`, valid now
 * and no later than the offer allows (at most an hour: an authorization holds its budget until then).
 */
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentRequirements, SchemeNetworkClient } from '@x402/core/types';
import { toClientEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmSchemeV1 } from '@x402/evm/v1';
import { getAddress, isAddress, isHex, type Address, type Hex, type LocalAccount } from 'viem';
import { CofferError } from '../../wire/errors.js';
import type { X402Names, X402Offer, X402Requirement, X402Signed } from '../../core/ports/x402.js';
import {
  x402AuthorizationNonce,
  encodeAuthorization,
  TRANSFER_AUTHORIZATION_TYPES,
  type SignedAuthorization,
  type TokenDomain,
} from '../../chain/evm/authorization.js';
import type { EvmSigners } from '../../chain/evm/signers.js';
import { x402EvmNetworks } from '../../chain/evm/networks.js';
import { chosenEntry } from './offer-terms.js';
import { byEip3009, EIP3009_ONLY } from '../../core/payments/x402-payable.js';

/**
 * The longest an authorization Coffer signs for a seller stays good: a seller may ask for more time
 * (`maxTimeoutSeconds`), but the payment's budget stays held until its authorization ends.
 */
export const MAX_X402_AUTHORIZATION_SECONDS = 3_600;
/** How far the package's clock (it signs with the system time) may be read apart from this check's. */
const CLOCK_SLACK_SECONDS = 5n;

export interface BaseX402Chain {
  chainId: number;
  usdc: Address;
  /** The token's EIP-712 domain, as the chain answers it. */
  domain(): Promise<TokenDomain>;
}

/** Paying x402 on the Base rail's chain, named as x402 names it (networks.ts x402EvmNetworks). */
export function baseX402Payments(options: { chain: BaseX402Chain; signers: EvmSigners }): {
  networks: X402Names;
  sign: (offer: X402Offer, requirement: X402Requirement, payer: string, paymentId: string) => Promise<X402Signed>;
  signingRefusal: (requirement: X402Requirement) => Promise<string | null>;
} {
  const paying = { ...options, networks: x402EvmNetworks(options.chain.chainId) };
  return {
    networks: paying.networks,
    sign: (offer, requirement, payer, paymentId) => signOffer(offer, requirement, payer, paymentId, paying),
    signingRefusal: async (requirement) => {
      // A token that cannot be read now: the signing reads it again, and says so.
      const domain = await options.chain.domain().catch(() => null);
      return domain === null ? null : (termsRefusalOf(requirement, domain)?.message ?? null);
    },
  };
}

/**
 * The offer's requirement signed by the package with `payer`'s account, read back, with the header
 * that carries it. Its nonce commits to the recipient and the payment's id (authorization.ts
 * x402AuthorizationNonce), not the package's random one: a payment signed again (a held
 * purchase, which keeps its id, approved again in a Coffer restored from an older file, helper 196)
 * carries the nonce the token may have run already, and moves money once at most. The id, not the
 * seller's memo: a seller's fresh terms may name a fresh memo.
 */
async function signOffer(
  offer: X402Offer,
  requirement: X402Requirement,
  payer: string,
  paymentId: string,
  { chain, signers, networks }: { chain: BaseX402Chain; signers: EvmSigners; networks: X402Names },
): Promise<X402Signed> {
  const { required, chosen } = chosenEntry(offer, requirement);
  const domain = await chain.domain();
  const window = termsRefusal(requirement, domain);
  const account = await signers.evmAccount(getAddress(payer));
  const to = getAddress(requirement.payTo);
  const nonce = x402AuthorizationNonce(to, paymentId);
  const signing = guardedSigner(account, domain, { to, value: requirement.amount, seconds: window, nonce });
  const signer = toClientEvmSigner(signing.signer);
  // The package signs for the seller's time, shortened to the longest Coffer gives; the payload's
  // `accepted` stays the seller's own terms (x402Client builds it from what it selected).
  const scheme = shortened(new ExactEvmScheme(signer), window);
  const client = new x402Client(() => chosen)
    .register(networks.v2 as `${string}:${string}`, scheme)
    // Coffer's policy decides what may be paid; the package's own spend controls would only
    // second-guess it (and know nothing of the registry or the budget).
    .setSpendControls(false);
  if (networks.v1 !== null) client.registerV1(networks.v1, shortenedV1(new ExactEvmSchemeV1(signer), window));
  const http = new x402HTTPClient(client);
  let payload;
  try {
    payload = withNonce(await http.createPaymentPayload(required), nonce);
  } catch (error) {
    throw new CofferError('internal', `the x402 payment could not be signed: ${(error as Error).message}`, { cause: error });
  }
  const authorization = readBackAuthorization(payload.payload, requirement, payer, domain, window);
  // The header carries exactly what the key signed (checked as it was signed), and nothing else.
  if (!signing.signedExactly(authorization)) throw notTheOffer('the payload is not what the payer signed');
  const [[name, value]] = Object.entries(http.encodePaymentSignatureHeader(payload)) as [[string, string]];
  return {
    header: { name, value },
    txWire: encodeAuthorization(authorization),
    payerSignature: authorization.nonce,
    lifetimeEnd: authorization.validBefore,
  };
}

/**
 * The package's payload with the nonce the key signed in place of the one the package drew (it
 * draws its own, and offers no way to name one); the read-back holds the payload to what was signed.
 */
function withNonce<P extends { payload: Record<string, unknown> }>(payload: P, nonce: Hex): P {
  const { authorization } = payload.payload as { authorization?: unknown };
  if (typeof authorization !== 'object' || authorization === null) return payload;
  return { ...payload, payload: { ...payload.payload, authorization: { ...authorization, nonce } } };
}

/**
 * The agent's account as the package signs with it. Security invariant: it signs one thing, an
 * EIP-3009 `TransferWithAuthorization` from this account under this token's EIP-712 domain (its
 * name, version, chain id and address), of exactly the amount to the recipient expected, valid now
 * and for `seconds` at most; anything else the package asked would be refused unsigned. It signs
 * with `nonce`, the payment's, whatever nonce the package drew (signOffer puts it in the payload).
 * What it signed is kept, so the payload can be held to it without recovering the signer (which
 * costs the serving thread some 6 ms of curve arithmetic a purchase).
 */
export function guardedSigner(
  account: LocalAccount,
  domain: TokenDomain,
  expected: { to: Address; value: bigint; seconds: number; nonce: Hex },
) {
  let signed: { message: Record<string, unknown>; signature: Hex } | null = null;
  const signer = {
    address: account.address,
    signTypedData: async (typed: {
      domain: Record<string, unknown>;
      types: Record<string, unknown>;
      primaryType: string;
      message: Record<string, unknown>;
    }) => {
      const { domain: asked, types, primaryType, message } = typed;
      const sameDomain =
        asked.name === domain.name &&
        asked.version === domain.version &&
        BigInt(asked.chainId as number | bigint) === BigInt(domain.chainId) &&
        typeof asked.verifyingContract === 'string' &&
        getAddress(asked.verifyingContract) === domain.verifyingContract;
      if (!sameDomain) throw notTheOffer('another EIP-712 domain than the token’s');
      if (primaryType !== 'TransferWithAuthorization' || JSON.stringify(types.TransferWithAuthorization) !== AUTHORIZATION_FIELDS) {
        throw notTheOffer(`a ${primaryType} to sign`);
      }
      if (typeof message.from !== 'string' || getAddress(message.from) !== account.address) throw notTheOffer('another payer');
      if (typeof message.to !== 'string' || getAddress(message.to) !== expected.to) throw notTheOffer('another recipient');
      if (!sameNumber(message.value, expected.value)) throw notTheOffer('another amount');
      const now = BigInt(Math.floor(Date.now() / 1000));
      const opens = asNumber(message.validAfter);
      const ends = asNumber(message.validBefore);
      if (opens === null || opens > now + CLOCK_SLACK_SECONDS) throw notTheOffer('a start in the future');
      if (ends === null || ends <= now || ends > now + BigInt(expected.seconds) + CLOCK_SLACK_SECONDS)
        throw notTheOffer('an end past the offer’s time');
      if (signed !== null) throw notTheOffer('a second signature');
      if (account.signTypedData === undefined) throw new Error(`the account ${account.address} cannot sign typed data`);
      // The payment's nonce, not the one the package drew (signOffer puts it in the payload).
      const withPaymentNonce = { ...message, nonce: expected.nonce };
      const signature = await account.signTypedData({
        domain,
        types: TRANSFER_AUTHORIZATION_TYPES,
        primaryType,
        message: withPaymentNonce as never,
      });
      signed = { message: withPaymentNonce, signature };
      return signature;
    },
  };
  return {
    signer,
    /** Whether the authorization read back is, field for field, the one message signed, with its signature. */
    signedExactly: (authorization: SignedAuthorization): boolean => {
      if (signed === null) return false;
      const { message, signature } = signed;
      const same = (field: unknown, value: bigint | string) => String(field) === String(value);
      return (
        signature === authorization.signature &&
        typeof message.to === 'string' &&
        getAddress(message.to) === authorization.to &&
        same(message.value, authorization.value) &&
        same(message.validAfter, authorization.validAfter) &&
        same(message.validBefore, authorization.validBefore) &&
        message.nonce === authorization.nonce
      );
    },
  };
}

const AUTHORIZATION_FIELDS = JSON.stringify(TRANSFER_AUTHORIZATION_TYPES.TransferWithAuthorization);

/** A typed-data number as the package hands it (a bigint, or its decimal text); null otherwise. */
const asNumber = (value: unknown): bigint | null =>
  typeof value === 'bigint' ? value : typeof value === 'string' && DECIMAL.test(value) ? BigInt(value) : null;
const sameNumber = (value: unknown, expected: bigint) => asNumber(value) === expected;

/**
 * Refuses, before anything is signed, terms the token would not honour: another transfer method
 * than EIP-3009 (Permit2 needs an approval the agent would pay gas for), or an EIP-712 name and
 * version that are not the token's (the signature would be worthless). Answers the seconds to sign for.
 */
function termsRefusal(requirement: X402Requirement, domain: TokenDomain): number {
  const refusal = termsRefusalOf(requirement, domain);
  if (refusal !== null) throw refusal;
  return Math.min(requirement.maxTimeoutSeconds!, MAX_X402_AUTHORIZATION_SECONDS);
}

/** termsRefusal's refusal, as a value: null where the terms are ones the token honours. */
function termsRefusalOf(requirement: X402Requirement, domain: TokenDomain): CofferError | null {
  const { extra } = requirement;
  const method = extra.assetTransferMethod;
  if (!byEip3009(method)) {
    return new CofferError('unsupported_offer', `the x402 offer asks for a transfer by ${JSON.stringify(String(method))}; ${EIP3009_ONLY}`);
  }
  if (typeof extra.name !== 'string' || typeof extra.version !== 'string') {
    return new CofferError(
      'unsupported_offer',
      `the x402 offer does not name its token's EIP-712 name and version (extra.name, extra.version), which an EIP-3009 authorization is signed for; this chain's USDC is "${domain.name}" version ${domain.version}`,
    );
  }
  if (extra.name !== domain.name || extra.version !== domain.version) {
    return new CofferError(
      'unsupported_offer',
      `the x402 offer names the token "${String(extra.name)}" version ${String(extra.version)}; this chain's USDC is "${domain.name}" version ${domain.version}`,
    );
  }
  const asked = requirement.maxTimeoutSeconds;
  // Not a whole number (60.5): no validBefore can be signed to it; below a second, no time to pay.
  if (asked === null) {
    return new CofferError('unsupported_offer', 'the x402 offer gives its time to pay (maxTimeoutSeconds) in no whole number of seconds');
  }
  if (asked < 1) return new CofferError('unsupported_offer', 'the x402 offer gives no time to pay (maxTimeoutSeconds)');
  return null;
}

/** v2's scheme signing for `seconds` at most (the package reads `maxTimeoutSeconds` for `validBefore`). */
const shortened = (scheme: SchemeNetworkClient, seconds: number): SchemeNetworkClient => ({
  scheme: scheme.scheme,
  createPaymentPayload: (version, requirements) => scheme.createPaymentPayload(version, { ...requirements, maxTimeoutSeconds: seconds }),
});

/** v1's scheme, likewise. */
const shortenedV1 = (scheme: ExactEvmSchemeV1, seconds: number): ExactEvmSchemeV1 =>
  Object.assign(Object.create(scheme) as ExactEvmSchemeV1, {
    createPaymentPayload: (version: number, requirements: PaymentRequirements) =>
      scheme.createPaymentPayload(version, { ...requirements, maxTimeoutSeconds: seconds }),
  });

/** What the package built was not the offer: nothing is handed out (a fault, never the seller's refusal). */
const notTheOffer = (why: string) =>
  new CofferError('internal', `the x402 authorization was not what the offer asked (${why}); it was not handed out`);

const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;

/** The package's payload read back into the authorization Coffer keeps, refused unless it is exactly the offer. */
export function readBackAuthorization(
  payload: Record<string, unknown>,
  requirement: X402Requirement,
  payer: string,
  domain: TokenDomain,
  seconds: number,
): SignedAuthorization {
  const { authorization, signature } = payload as { authorization?: Record<string, unknown>; signature?: unknown };
  if (authorization === undefined || typeof signature !== 'string' || !isHex(signature)) throw notTheOffer('no EIP-3009 authorization');
  const { from, to, value, validAfter, validBefore, nonce } = authorization;
  const address = (field: unknown) => (typeof field === 'string' && isAddress(field, { strict: false }) ? getAddress(field) : null);
  const amount = (field: unknown) => (typeof field === 'string' && DECIMAL.test(field) ? BigInt(field) : null);
  if (address(from) !== getAddress(payer)) throw notTheOffer('the payer');
  if (address(to) !== getAddress(requirement.payTo)) throw notTheOffer('the recipient');
  if (amount(value) !== requirement.amount) throw notTheOffer('the amount');
  const opens = amount(validAfter);
  const ends = amount(validBefore);
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (opens === null || opens > now + CLOCK_SLACK_SECONDS) throw notTheOffer('its start');
  if (ends === null || ends <= now || ends > now + BigInt(seconds) + CLOCK_SLACK_SECONDS) throw notTheOffer('its end');
  if (typeof nonce !== 'string' || !isHex(nonce) || nonce.length !== 66) throw notTheOffer('its nonce');
  return {
    domain,
    from: getAddress(payer),
    to: getAddress(requirement.payTo),
    value: requirement.amount,
    validAfter: opens,
    validBefore: ends,
    nonce: nonce as Hex,
    signature,
    relayer: null,
  };
}
