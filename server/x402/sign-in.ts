import { createSIWxPayload, encodeSIWxHeader, SIGN_IN_WITH_X, type SIWxExtension } from '@x402/extensions/sign-in-with-x';
import type { PaymentRequired } from '@x402/core/types';
import type { X402Offer, X402SignInChallenge } from '../core/ports/x402.js';
import type { WalletSigners } from '../chain/solana/signers.js';

/** The offer's `sign-in-with-x` extension as the seller wrote it, if it has one with the fields a proof needs. */
function extensionOf(offer: X402Offer): SIWxExtension | null {
  const extensions = (offer.source as PaymentRequired).extensions as Record<string, unknown> | undefined;
  const extension = extensions?.[SIGN_IN_WITH_X] as Partial<SIWxExtension> | undefined;
  const info = extension?.info as Partial<SIWxExtension['info']> | undefined;
  if (typeof info?.domain !== 'string' || typeof info.uri !== 'string' || !Array.isArray(extension?.supportedChains)) return null;
  return extension as SIWxExtension;
}

/** The challenge of an offer, read (v2 only: v1 offers carry no extensions). */
export function readSignIn(offer: X402Offer): X402SignInChallenge | null {
  const extension = extensionOf(offer);
  if (extension === null) return null;
  return {
    domain: extension.info.domain,
    uri: extension.info.uri,
    ed25519Chains: extension.supportedChains
      .filter((chain) => chain?.type === 'ed25519' && typeof chain.chainId === 'string')
      .map((chain) => chain.chainId),
  };
}

/**
 * The proof for that chain, built and encoded by `@x402/extensions` (a Sign-In With Solana text
 * message), signed with the wallet's key from the vault: the SIGN-IN-WITH-X header.
 *
 * Security: the bytes signed are the package's SIWS text ("<domain> wants you to sign in with your
 * Solana account: ..."), whose domain the core has bound to the URL asked; text in that form is no
 * Solana transaction message, so the signature can move nothing.
 */
export async function signIn(
  vault: WalletSigners,
  offer: X402Offer,
  chainId: string,
  wallet: string,
  url: string,
): Promise<{ name: string; value: string }> {
  const extension = extensionOf(offer);
  const chain = extension?.supportedChains.find((entry) => entry.chainId === chainId && entry.type === 'ed25519');
  if (extension === null || chain === undefined) throw new Error('the offer takes no sign-in proof on this chain');
  const sign = await vault.signBytes(wallet);
  const payload = await createSIWxPayload(
    { ...extension.info, chainId, type: 'ed25519', ...(chain.signatureScheme ? { signatureScheme: chain.signatureScheme } : {}) },
    { publicKey: wallet, signMessage: async (message: Uint8Array) => sign(message) },
    url,
  );
  // The header as the spec writes it; the extension's key (SIGN_IN_WITH_X) is its lower-case name.
  return { name: 'SIGN-IN-WITH-X', value: encodeSIWxHeader(payload) };
}
