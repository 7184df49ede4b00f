import {
  createSIWxMessage,
  createSIWxPayload,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
} from '@x402/extensions/sign-in-with-x';
import { CofferError } from '../../wire/errors.js';
import type { PaymentRequired } from '@x402/core/types';
import type { X402Offer, X402SignInChallenge } from '../../core/ports/x402.js';
import type { WalletSigners } from '../../chain/solana/signers.js';
import type { EvmSigners } from '../../chain/evm/signers.js';
import type { Rail } from '../../wire/rails.js';

/** The offer's `sign-in-with-x` extension as the seller wrote it, if it has one with the fields a proof needs. */
function extensionOf(offer: X402Offer): SIWxExtension | null {
  const extensions = (offer.source as PaymentRequired).extensions as Record<string, unknown> | undefined;
  const extension = extensions?.[SIGN_IN_WITH_X] as Partial<SIWxExtension> | undefined;
  const info = extension?.info as Partial<SIWxExtension['info']> | undefined;
  if (typeof info?.domain !== 'string' || typeof info.uri !== 'string' || !Array.isArray(extension?.supportedChains)) return null;
  return extension as SIWxExtension;
}

const chainsOf = (extension: SIWxExtension, type: 'ed25519' | 'eip191') =>
  extension.supportedChains.filter((chain) => chain?.type === type && typeof chain.chainId === 'string').map((chain) => chain.chainId);

/** The challenge of an offer, read (v2 only: v1 offers carry no extensions). */
export function readSignIn(offer: X402Offer): X402SignInChallenge | null {
  const extension = extensionOf(offer);
  if (extension === null) return null;
  return {
    domain: extension.info.domain,
    uri: extension.info.uri,
    ed25519Chains: chainsOf(extension, 'ed25519'),
    eip191Chains: chainsOf(extension, 'eip191'),
    fault: challengeFault(extension.info),
  };
}

/** The challenge's fields a SIWE/SIWS message writes as text (`resources` is a list of them). */
const TEXT_FIELDS = ['domain', 'uri', 'version', 'nonce', 'issuedAt', 'expirationTime', 'notBefore', 'statement', 'requestId'] as const;

/** An RFC 3339 time, as SIWE and SIWS write theirs ("2026-11-30T03:00:00.000Z"). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Why the challenge cannot be signed as a SIWE/SIWS message (EIP-4361, CAIP-122); null where it can.
 *
 * Security: the message is lines of text the wallet signs. A line break in a field the seller wrote
 * would let it add lines of its own (another `URI:`, another `Chain ID:`) to what the agent's key
 * signs, so any control character in any field refuses the challenge; the package's SIWS text does
 * not check it, and its SIWE text throws an error of its own words.
 */
function challengeFault(info: Partial<SIWxExtension['info']>): string | null {
  // Each written as a line of text: anything else would be signed as whatever it turns into ("5").
  for (const field of TEXT_FIELDS) {
    const value = (info as Record<string, unknown>)[field];
    if (value !== undefined && typeof value !== 'string') return `its ${field} is not text`;
  }
  for (const [field, value] of Object.entries(info)) {
    const texts: unknown[] = Array.isArray(value) ? value : [value];
    // U+2028 and U+2029 break lines too, where the text is read as lines.
    if (texts.some((text) => typeof text === 'string' && /[\p{Cc}\p{Zl}\p{Zp}]/u.test(text))) {
      return `its ${field} holds a line break or another control character`;
    }
  }
  if (info.version !== '1') return `its version is ${JSON.stringify(info.version ?? null)}, not "1"`;
  for (const field of ['issuedAt', 'expirationTime', 'notBefore'] as const) {
    const time = info[field];
    if (
      (field === 'issuedAt' || time !== undefined) &&
      (typeof time !== 'string' || !RFC3339.test(time) || Number.isNaN(Date.parse(time)))
    ) {
      return `its ${field} is not an RFC 3339 time`;
    }
  }
  const { resources } = info;
  if (resources !== undefined && (!Array.isArray(resources) || resources.some((uri) => typeof uri !== 'string' || !URL.canParse(uri)))) {
    return 'its resources are not a list of URIs';
  }
  return null;
}

/**
 * The proof for that chain, built and encoded by `@x402/extensions` (a Sign-In With Solana text
 * message, or on an `eip155` chain a Sign-In With Ethereum one), signed with the wallet's key from
 * the vault: the SIGN-IN-WITH-X header.
 *
 * Security: the bytes signed are the package's SIWS/SIWE text ("<domain> wants you to sign in with
 * your ... account: ..."), whose domain the core has bound to the URL asked. SIWS text is no Solana
 * transaction message, and an EVM account signs SIWE text as an EIP-191 personal message (prefixed,
 * never a transaction or typed data), so neither signature can move anything.
 */
export async function signIn(
  signers: { solana: WalletSigners; evm: EvmSigners | null },
  offer: X402Offer,
  chainId: string,
  wallet: string,
  url: string,
  rail: Rail,
): Promise<{ name: string; value: string }> {
  const extension = extensionOf(offer);
  const type: 'eip191' | 'ed25519' = rail === 'base' ? 'eip191' : 'ed25519';
  // Entries that are no chain (null, a number) are passed over, as readSignIn passes them.
  const chain = extension?.supportedChains.find((entry) => entry?.chainId === chainId && entry.type === type);
  if (extension === null || chain === undefined) throw new Error('the offer takes no sign-in proof on this chain');
  const info = { ...extension.info, chainId, type, ...(chain.signatureScheme ? { signatureScheme: chain.signatureScheme } : {}) };
  // The message built before any key is asked: one the package refuses to write is the seller's fault,
  // said as such, never signed. SIWE's nonce said in Coffer's words (the package says "line 9").
  if (rail === 'base' && (typeof info.nonce !== 'string' || !/^[A-Za-z0-9]{8,}$/.test(info.nonce))) {
    throw new CofferError(
      'sign_in_not_offered',
      "the seller's sign-in challenge cannot be signed: its nonce is not 8 or more letters and digits, as Sign-In With Ethereum writes one",
    );
  }
  // As is a statement SIWE's grammar does not carry (EIP-4361: its reserved and unreserved characters
  // and spaces), said so: the parser says "input length out of range" or "max line number was 6".
  if (rail === 'base' && typeof info.statement === 'string' && !/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= ]*$/.test(info.statement)) {
    throw new CofferError(
      'sign_in_not_offered',
      "the seller's sign-in challenge cannot be signed: its statement holds characters Sign-In With Ethereum does not carry (it takes letters, digits, spaces and -._~:/?#[]@!$&'()*+,;=)",
    );
  }
  try {
    createSIWxMessage(info, wallet);
  } catch (error) {
    throw new CofferError(
      'sign_in_not_offered',
      `the seller's sign-in challenge cannot be signed: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  let payload;
  if (rail === 'base') {
    if (signers.evm === null) throw new Error('no EVM accounts to sign in with');
    const account = await signers.evm.evmAccount(wallet);
    payload = await createSIWxPayload(
      info,
      { address: account.address, signMessage: ({ message }: { message: string }) => account.signMessage({ message }) },
      url,
    );
  } else {
    const sign = await signers.solana.signBytes(wallet);
    payload = await createSIWxPayload(info, { publicKey: wallet, signMessage: async (message: Uint8Array) => sign(message) }, url);
  }
  // The header as the spec writes it; the extension's key (SIGN_IN_WITH_X) is its lower-case name.
  return { name: 'SIGN-IN-WITH-X', value: encodeSIWxHeader(payload) };
}
