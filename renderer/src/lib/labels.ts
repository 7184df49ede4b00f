/**
 * One word per payment state, the same on every page: the activity feed's `approved` and the spend
 * history's `confirmed` are both a payment that went through; `held` waits for the owner's yes.
 */
const PAYMENT_STATUS: Record<string, string> = {
  approved: 'Paid',
  confirmed: 'Paid',
  pending: 'Sending',
  held: 'Waiting for you',
  failed: 'Failed',
  refunded: 'Refunded',
};

export const paymentStatusLabel = (status: string): string => PAYMENT_STATUS[status] ?? status;
