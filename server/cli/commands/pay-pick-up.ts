/**
 * `coffer pay … --approval apr_…`: picks up the request an earlier `coffer pay` was held under, where
 * that process was killed outright (no interrupt withdrew the request). The owner's yes to a `/pay`
 * request pays at once, and its receipt is in the request's result: only the process that waited
 * printed it, and paying again would pay twice. A pick-up pays nothing itself: it waits for the
 * owner where the request still waits (withdrawn on an interrupt, as a held `coffer pay` is), then
 * answers the payment that yes made.
 */
import { approvedOrThrow } from '../../client/held-payment.js';
import { agentCommandLine } from '../agent-command-line.js';
import { defaultConfigPath } from '../../linked-agent/agent-config.js';
import { isEvmAddress } from '../../wire/rails.js';
import { LIST_LIMITS } from '../../wire/limits.js';
import { failureWords } from '../../wire/payment-failure.js';
import { CofferApiError } from '../../client/client-error.js';
import type { CofferClient } from '../../client/coffer-client.js';
import type { Approval } from '../../wire/answers/approvals.js';
import type { Payment } from '../../wire/answers/payments.js';
import { tryParseUsdc } from '../../wire/money.js';
import { railName } from '../../wire/rail-words.js';
import { DEFAULT_TERMS_SECONDS } from '../../wire/paywall-nonce.js';
import { localTime } from '../local-time.js';
import type { Rail } from '../../wire/rails.js';

/** What the command line said of the payment, beside `--approval`: each term it names must be the request's. */
export type PayTerms = { service?: string; amount?: string; recipient?: string; rail?: Rail; nonce?: string };

/** The command that picks a held `coffer pay` request up. */
export const payPickUpCommand = (approvalId: string, configPath: string) => agentCommandLine(['pay', '--approval', approvalId], configPath);

/**
 * Why a request is not the payment this `coffer pay` picks up; null where it is. Only the terms the
 * command names are compared (`coffer pay --approval ID` alone names none): the sum in micro-USDC,
 * an EVM recipient in any case (a Solana address's case is part of it). An x402 purchase is told the
 * command that picks it up, as a shell runs it (`configPath`: the agent's config, named where it is
 * not the default).
 */
export function pickUpMismatch(approval: Approval, terms: PayTerms, configPath = defaultConfigPath()): string | null {
  const { approvalId, kind, request } = approval;
  if (kind !== 'payment') return `request ${approvalId} asks for a ${kind} change, not a payment`;
  const text = (field: string) => (typeof request[field] === 'string' ? request[field] : null);
  const resource = text('resource');
  if (resource !== null)
    return `request ${approvalId} is an x402 purchase of ${resource}: ${agentCommandLine(['fetch', resource, '--approval', approvalId], configPath)} picks it up`;
  if (request.purchase !== undefined) return `request ${approvalId} pays for an image generation (coffer images), not a coffer pay`;
  const same = {
    service: terms.service === undefined || terms.service === text('service'),
    amount: terms.amount === undefined || tryParseUsdc(terms.amount) === tryParseUsdc(text('amount') ?? ''),
    recipient: terms.recipient === undefined || sameRecipient(terms.recipient, text('recipient') ?? ''),
    rail: terms.rail === undefined || terms.rail === text('rail'),
    nonce: terms.nonce === undefined || terms.nonce === text('nonce'),
  };
  if (Object.values(same).every(Boolean)) return null;
  const rail = text('rail');
  const nonce = text('nonce');
  return (
    `request ${approvalId} is not this payment: it pays ${text('amount')} USDC for ${text('service')} to ${text('recipient')}` +
    `${rail === 'sol' || rail === 'base' ? ` on ${railName(rail)}` : ''}${nonce === null ? '' : ` (nonce ${nonce})`}`
  );
}

/** One recipient: an EVM address in any case (its checksum is its case), a Solana one as written. */
const sameRecipient = (named: string, asked: string) =>
  isEvmAddress(named) && isEvmAddress(asked) ? named.toLowerCase() === asked.toLowerCase() : named === asked;

/**
 * The payment a held `/pay` request made at the owner's yes: refused `approval_mismatch` (nothing
 * waited for) where the request is not this payment, waited for while it waits (`onHeld` told, as a
 * held payment's wait is), and refused with its code where it ended otherwise (nothing was paid).
 * What the yes answered must be a payment with its receipt: a request held before requests said what
 * they answer (an x402 purchase among them, whose yes pays nothing) is refused, never printed as paid.
 */
export async function pickedUpPayment(
  api: Pick<CofferClient, 'approval' | 'spendHistory'>,
  approvalId: string,
  terms: PayTerms,
  onHeld: (approval: Approval) => void,
  configPath = defaultConfigPath(),
): Promise<Payment> {
  const approval = await api.approval(approvalId);
  const mismatch = pickUpMismatch(approval, terms, configPath);
  if (mismatch !== null) throw new CofferApiError(409, 'approval_mismatch', mismatch);
  if (approval.status === 'pending') onHeld(approval);
  const result = (await approvedOrThrow(api, approval)).result as Partial<Payment> & { protocol?: string };
  if (result.protocol === 'x402' || typeof result.xPaymentHeader !== 'string' || typeof result.paymentId !== 'string') {
    throw new CofferApiError(
      409,
      'approval_mismatch',
      `request ${approvalId} made no coffer pay payment: its yes answered no receipt (an x402 purchase is bought by coffer fetch URL --approval ${approvalId})`,
    );
  }
  // What the yes answered is the payment as it stood then; read again as it stands now (among the
  // agent's latest payments): one that failed since (it never landed) paid nothing, and its receipt
  // would buy nothing.
  const paid = result as Payment;
  const { payments } = await api.spendHistory(approval.agentId, LIST_LIMITS.spendHistory);
  const now = payments.find(({ id }) => id === paid.paymentId);
  if (now?.status === 'failed') {
    const code = now.errorCode ?? 'payment_failed';
    throw new CofferApiError(
      409,
      code,
      `request ${approvalId}'s payment ${paid.paymentId} failed after the owner's yes (${failureWords(code)}): nothing was paid`,
    );
  }
  return now === undefined || now.status === 'refunded'
    ? paid
    : { ...paid, status: now.status, txSignature: now.txSignature ?? paid.txSignature };
}

/**
 * A receipt picked up after a paywall would take it, in words; null while it still would. What the
 * yes paid is a receipt a Coffer paywall takes for DEFAULT_TERMS_SECONDS after it lands (or until its
 * nonce's terms end): picked up later, it may buy nothing, and paying again is the agent's choice.
 */
export function lateReceiptWords(paidAt: string, now: number): string | null {
  const ago = now - Date.parse(paidAt);
  if (!(ago > DEFAULT_TERMS_SECONDS * 1000)) return null;
  return (
    `It was paid at ${localTime(paidAt)}, ${Math.floor(ago / 60_000)} min ago: a Coffer paywall takes a receipt for ` +
    `${DEFAULT_TERMS_SECONDS} s after it lands by default (or until its nonce's terms end), and may refuse this one ` +
    '(receipt_expired). Nothing more was paid.'
  );
}
