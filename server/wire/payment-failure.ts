/**
 * Why a failed payment failed, from its `errorCode`, in the words every door uses (the dashboard's
 * pill and its hover, the CLI's status): the owner's no is not the chain's. Pure and browser-safe.
 * A code not named here (a refusal when a held payment was approved, say) is said as its code.
 */
/** `label`: the pill's word where it is not plain "Failed" (the owner's doing, not the chain's). */
const FAILURES: Readonly<Record<string, { label?: string; words: string }>> = {
  payment_denied: { label: 'Denied', words: 'denied by the owner' },
  // Unanswered in time, or approved as an x402 purchase the agent then never made (expireUnusedHolds).
  approval_expired: {
    label: 'Expired',
    words: "its request ended unpaid: no answer in time (24 h, or the seller's terms' end), or an approved purchase never made",
  },
  nonce_expired: { label: 'Expired', words: "the seller's terms ended before the owner's yes; nothing moved" },
  approval_withdrawn: { label: 'Withdrawn', words: 'its request was withdrawn (the agent was stopped, or stopped waiting)' },
  approval_interrupted: { words: 'Coffer stopped while it was being approved; nothing moved' },
  dropped: { words: 'it never landed on chain' },
  chain_rejected: { words: 'the chain refused it' },
  // A held payment the owner approved when the wallet no longer held it (a return of everything meanwhile, say).
  insufficient_funds: { words: 'its wallet did not hold the amount; nothing moved' },
};

/** One word for a failed payment the owner's doing ended ("Denied", "Expired", "Withdrawn"); null for any other failure. */
export const failureLabel = (errorCode: string | undefined): string | null =>
  (errorCode === undefined ? undefined : FAILURES[errorCode]?.label) ?? null;

/** Why it failed, in words ("denied by the owner"); an unnamed code as itself. */
export const failureWords = (errorCode: string): string => FAILURES[errorCode]?.words ?? errorCode;
