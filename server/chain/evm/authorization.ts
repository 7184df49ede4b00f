/**
 * A move of USDC on the EVM rail as Coffer signs and keeps it: an EIP-3009 `transferWithAuthorization`
 * signed by the paying wallet (an agent, or the treasury for its own moves), which the treasury sends
 * and pays the gas of. Money moves only by this authorization, and the token runs one at most once
 * (its nonce), however many transactions carry it; so the authorization, not a transaction, is what a
 * transfer's row keeps while it is pending (its `txWire`, this module's encoding), and its nonce names
 * it until the transaction that carried it is known.
 */
import { isAddress, isHex, keccak256, recoverTypedDataAddress, stringToHex, type Address, type Hex, type LocalAccount } from 'viem';

/** The token's EIP-712 domain as the chain answers it (name and version read from the token, never assumed). */
export interface TokenDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

export interface SignedAuthorization {
  domain: TokenDomain;
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  /** Seconds: from this block time on it can no longer land. */
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
  /**
   * Who sends it and pays its gas: the treasury's account. Null for an x402 payment, which the
   * seller's facilitator sends (Coffer never does).
   */
  relayer: Address | null;
}

/** EIP-3009's typed data of a transfer authorization (the fields the payer signs, in order). */
export const TRANSFER_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/**
 * The nonce of the authorization Coffer signs for a move: it commits to whom the move pays and its
 * memo (a paid API's nonce, or Coffer's own record id where none was asked), the memo a Solana
 * transfer carries on chain and an EVM transfer cannot. So a paywall verifies a Base receipt's memo
 * against the chain (the AuthorizationUsed log of its transaction), and a memo is paid to a recipient
 * once at most by each payer: a second record for it can never land (Coffer refuses to sign one while
 * the first is live; a failed or dropped one never used its nonce).
 */
export const authorizationNonce = (to: Address, memo: string): Hex => keccak256(stringToHex(`coffer-transfer:${to}:${memo}`));

/**
 * The nonce of the authorization an agent signs for an x402 payment on Base: it commits to the
 * seller's payTo and the payment's id, so the payment signed again (a held purchase approved again
 * in a Coffer restored from an older file) runs once at most. Its own domain, apart from
 * authorizationNonce's: a memo is the caller's text, and a `/pay` whose memo named an x402 payment's
 * id used that payment's nonce first, which then never ran (helper 199).
 */
export const x402AuthorizationNonce = (payTo: Address, paymentId: string): Hex =>
  keccak256(stringToHex(`coffer-x402:${payTo}:${paymentId}`));

const messageOf = (a: Omit<SignedAuthorization, 'signature' | 'relayer' | 'domain'>) => ({
  from: a.from,
  to: a.to,
  value: a.value,
  validAfter: a.validAfter,
  validBefore: a.validBefore,
  nonce: a.nonce,
});

export async function signAuthorization(
  account: LocalAccount,
  unsigned: Omit<SignedAuthorization, 'signature' | 'from'>,
): Promise<SignedAuthorization> {
  if (account.signTypedData === undefined) throw new Error(`the account ${account.address} cannot sign typed data`);
  const message = messageOf({ ...unsigned, from: account.address });
  const signature = await account.signTypedData({
    domain: unsigned.domain,
    types: TRANSFER_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  return { ...unsigned, from: account.address, signature };
}

/** Whether the signature is the payer's over exactly these terms. */
export async function isSignedByPayer(a: SignedAuthorization): Promise<boolean> {
  const signer = await recoverTypedDataAddress({
    domain: a.domain,
    types: TRANSFER_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: messageOf(a),
    signature: a.signature,
  });
  return signer === a.from;
}

const PREFIX = 'eip3009:';

/** The authorization as a row keeps it (text; amounts and times as decimal strings). */
export function encodeAuthorization(a: SignedAuthorization): string {
  return (
    PREFIX +
    JSON.stringify({
      ...a,
      value: a.value.toString(),
      validAfter: a.validAfter.toString(),
      validBefore: a.validBefore.toString(),
    })
  );
}

const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;

/** A kept authorization read back; throws on anything that is not one this module wrote. */
export function decodeAuthorization(wire: string): SignedAuthorization {
  if (!wire.startsWith(PREFIX)) throw new Error('not an EIP-3009 authorization');
  const raw = JSON.parse(wire.slice(PREFIX.length)) as Record<string, unknown>;
  const domain = raw.domain as Record<string, unknown> | undefined;
  const address = (value: unknown, what: string): Address => {
    if (typeof value !== 'string' || !isAddress(value, { strict: false })) throw new Error(`the authorization's ${what} is not an address`);
    return value as Address;
  };
  const decimal = (value: unknown, what: string): bigint => {
    if (typeof value !== 'string' || !DECIMAL.test(value)) throw new Error(`the authorization's ${what} is not an amount`);
    return BigInt(value);
  };
  const hex = (value: unknown, what: string, bytes: number | null): Hex => {
    if (typeof value !== 'string' || !isHex(value) || (bytes !== null && value.length !== 2 + bytes * 2)) {
      throw new Error(`the authorization's ${what} is not ${bytes === null ? 'hex' : `${bytes} bytes`}`);
    }
    return value;
  };
  if (
    domain === undefined ||
    typeof domain.name !== 'string' ||
    typeof domain.version !== 'string' ||
    !Number.isSafeInteger(domain.chainId)
  ) {
    throw new Error("the authorization's domain is not one");
  }
  return {
    domain: {
      name: domain.name,
      version: domain.version,
      chainId: domain.chainId as number,
      verifyingContract: address(domain.verifyingContract, 'token'),
    },
    from: address(raw.from, 'payer'),
    to: address(raw.to, 'recipient'),
    value: decimal(raw.value, 'value'),
    validAfter: decimal(raw.validAfter, 'start'),
    validBefore: decimal(raw.validBefore, 'end'),
    nonce: hex(raw.nonce, 'nonce', 32),
    signature: hex(raw.signature, 'signature', null),
    relayer: raw.relayer === null ? null : address(raw.relayer, 'relayer'),
  };
}
