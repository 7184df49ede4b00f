/**
 * A payment as its door builds it, whatever the door: what the agent asked (judged at the door), and
 * the payment checked and ready to move (judged again in its reservation, then moved).
 */
import type { MoveKey, SignedTransfer } from '../transfers/lifecycle.js';
import type { PaymentRecord, ServiceRecord } from '../ports/store.js';
import type { Rail } from '../../wire/rails.js';

/** What an agent asks to pay, through any door (/pay, x402): what its opening checks. */
export interface PaymentAsked {
  serviceId: string;
  service: ServiceRecord | null;
  /** Unknown until the door finds it (a service outside the registry names its own). */
  recipient: string | undefined;
  amount: bigint;
  /** The price that caps it, when the registry lists one. */
  listed: bigint | null;
  key: MoveKey<'payment'> | null;
  sentBy: 'coffer' | 'seller';
  /** The rail it is paid on: its recipient's (an EVM address is paid on Base). */
  rail: Rail;
}

/** A payment checked and ready to move: everything its row holds besides its signed transaction. */
export interface PaymentToMove extends PaymentAsked {
  id: string;
  recipient: string;
  memo: string;
  /** The paid API's nonce: paid once per recipient. Null: none (the memo is then the payment's id). */
  nonce: string | null;
  /**
   * Every memo that binds this payment's challenge, with the recipient it is paid to: an x402 offer's
   * entries are one challenge, paid once whichever entry is paid. Absent: its own nonce alone.
   */
  challengeMemos?: PaidMemo[];
  description: string;
  resource: string | null;
  alsoWrite?: (payment: PaymentRecord) => void;
  /**
   * The owner said yes to this held payment (held.ts): the reservation takes the hold out
   * before judging it, so it is judged as made now, once; and the cooldown does not apply (the owner's
   * yes is not the agent's pace).
   */
  approved?: boolean;
  /**
   * An x402 offer payable on another rail too, whose wallet there did not hold the amount either
   * when the rail was chosen (x402-pay.ts railWithFunds): its figure, said in a refusal for want of
   * funds; null where this rail was asked for and the other not read (the refusal says it is payable there;
   * `byYes`: the rail was the one the owner's yes was for, not asked by the agent).
   */
  alsoShort?: AlsoShort;
}

/** A seller's memo as paid: to this recipient (on its rail), under this memo. */
export interface PaidMemo {
  recipient: string;
  memo: string;
}

/** A payment's signed transaction, with what x402 hands out (null for a payment Coffer sends). */
export type SignedPayment = SignedTransfer & Pick<PaymentRecord, 'payerSignature' | 'x402Header'>;

/**
 * The other rail an x402 offer is payable on, where the rail paid could not pay it: what its wallet
 * holds (`free`), or null where it was not read, this rail having been asked for: by the agent, or
 * (`byYes`) by the owner's yes, which holds the purchase to the rail it was asked on.
 */
export interface AlsoShort {
  rail: Rail;
  free: bigint | null;
  byYes?: true;
}
