/**
 * Why a failed payment failed, from its `errorCode`, in the words every door uses (the dashboard's
 * pill and its hover, the CLI's status): the owner's no is not the chain's. Pure and browser-safe.
 * A code not named here (a refusal when a held payment was approved, say) is said as its code.
 */
const FAILURES: Readonly<Record<string, { label: string; words: string }>> = {
  payment_denied: { label: 'Denied', words: 'denied by the owner' },
  approval_expired: { label: 'Expired', words: 'the owner did not answer within 24 h' },
  approval_withdrawn: { label: 'Withdrawn', words: 'its request was withdrawn when the agent was stopped' },
  approval_interrupted: { label: 'Failed', words: 'Coffer stopped while it was being approved; nothing moved' },
  dropped: { label: 'Failed', words: 'it never landed on chain' },
  chain_rejected: { label: 'Failed', words: 'the chain refused it' },
};

/** One word for a failed payment's pill: "Denied", "Expired", "Withdrawn", else "Failed". */
export const failureLabel = (errorCode: string | undefined): string =>
  (errorCode === undefined ? undefined : FAILURES[errorCode]?.label) ?? 'Failed';

/** Why it failed, in words ("denied by the owner"); an unnamed code as itself. */
export const failureWords = (errorCode: string): string => FAILURES[errorCode]?.words ?? errorCode;
