/**
 * What a paywall's facilitator says it settles (its `getSupported` kinds), kept a while: its fee
 * payer on Solana, whether it settles on Base.
 */
import type { FacilitatorClient } from '@x402/core/server';
import { keptAnswer, sayingOnce } from './kept-answer.js';

/**
 * The facilitator's fee payer on `network` (x402's v2 name), and every fee payer it says it has
 * there (its `signers` for Solana, with that one): the official facilitator with several keys names
 * one of them at random each time it is asked, and settles a payment made for any. Kept as
 * kept-answer.ts says: asked again after a minute, soon where it said nothing usable (logged once
 * until it says something else), and at once after it refused a payment (it may have restarted
 * with another key, and every offer naming the old one would be refused).
 */
export function facilitatorFeePayer(facilitator: FacilitatorClient, network: string, log: (message: string) => void) {
  return facilitatorKind(facilitator, network, log, (kind, signers) => {
    const feePayer = kind?.extra?.feePayer;
    if (typeof feePayer !== 'string') throw new Error(`it pays no fees on ${network}`);
    const listed = signers?.[SOLANA_FAMILY];
    const feePayers = Array.isArray(listed) ? listed.filter((signer): signer is string => typeof signer === 'string') : [];
    return { feePayer, feePayers: feePayers.includes(feePayer) ? feePayers : [feePayer, ...feePayers] };
  });
}

/**
 * Whether the facilitator settles `exact` on `network` (an EVM chain: the payer's authorization
 * needs no fee payer), kept as the fee payer is; with the accounts it says it sends from there (its
 * `signers` for EVM chains, none where it names none).
 */
export const facilitatorSettles = (facilitator: FacilitatorClient, network: string, log: (message: string) => void) =>
  facilitatorKind(facilitator, network, log, (kind, signers) => {
    if (kind === undefined) throw new Error(`it does not settle exact payments on ${network}`);
    const senders = signers?.[EVM_FAMILY];
    return { senders: Array.isArray(senders) ? senders.filter((sender) => typeof sender === 'string') : [] };
  });

/** The keys a facilitator's `getSupported` names its accounts under (x402's CAIP families of EVM chains and of Solana's). */
const EVM_FAMILY = 'eip155:*';
const SOLANA_FAMILY = 'solana:*';

type Supported = Awaited<ReturnType<FacilitatorClient['getSupported']>>;
type SupportedKind = Supported['kinds'][number];

/**
 * Whether a paywall offers x402 on `network` (x402's v2 name) through a facilitator of these kinds:
 * it settles `exact` there, and on Solana names the fee payer the offer carries (as read above).
 */
export function offersExactOn(kinds: readonly SupportedKind[], network: string): boolean {
  const kind = exactKindOn(kinds, network);
  return kind !== undefined && (!network.startsWith('solana:') || typeof kind.extra?.feePayer === 'string');
}

/** The facilitator's `exact` kind on `network` among what it supports; undefined where it settles none there. */
const exactKindOn = (kinds: readonly SupportedKind[], network: string): SupportedKind | undefined =>
  kinds.find((entry) => entry.scheme === 'exact' && entry.network === network);

/** What the facilitator's `exact` kind on `network` says (`read` throws where it says nothing usable), kept as described above. */
function facilitatorKind<T>(
  facilitator: FacilitatorClient,
  network: string,
  log: (message: string) => void,
  read: (kind: SupportedKind | undefined, signers: Partial<Supported['signers']> | undefined) => T,
) {
  // Each trouble is said once, until the facilitator says something else (every unpaid request asks).
  const say = sayingOnce(log);
  return keptAnswer(async (): Promise<T | null> => {
    let supported;
    try {
      supported = await facilitator.getSupported();
    } catch (error) {
      say(`paywall: the x402 facilitator could not be asked: ${(error as Error).message}`);
      return null;
    }
    try {
      const value = read(exactKindOn(supported.kinds, network), supported.signers);
      say(null);
      return value;
    } catch (error) {
      // It answered, but what it said leaves this network out of the 402s: asked again soon, as a
      // facilitator still starting up may name nothing yet.
      say(`paywall: the x402 facilitator answered, but ${(error as Error).message}: its 402s offer no x402 there`);
      return null;
    }
  });
}
