/**
 * Refused payments, written down for the owner: what an agent tried and was not allowed (the policy
 * decision itself is server/core/policy/rules.ts). A retry loop is written once (the same code,
 * service, amount and rail within 10 s, refusal-repeats.ts; a stopped agent's or an ended policy's,
 * whatever it asked), one agent's fill at most a fifth of the owner's list, and every refusal is
 * announced.
 */
import { CofferError, RepeatedFailure, type ErrorCode } from '../../wire/errors.js';
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import { watchRefusal } from '../policy/spending-watch.js';
import { formatUsdc, tryParseUsdc } from '../../wire/money.js';
import type { Rail } from '../../wire/rails.js';
import { stoppedByBreakerWords } from '../../wire/policy/breaker.js';

/** Refused payments kept per owner for the dashboard. */
const REFUSALS_KEPT = 500;
/**
 * The most of those one agent's may be: an agent with no breaker, refused for ever-new asks (each
 * a refusal of its own, written), pushes out only its own, never every other agent's.
 */
export const REFUSALS_KEPT_PER_AGENT = 100;
/**
 * Refusals whose answer is the same whatever is asked: the agent is stopped, or its policy ended.
 * Neither counts for a breaker, so nothing stops an agent looping on them.
 */
const WHATEVER_ASKED = new Set<ErrorCode>(['agent_suspended', 'policy_expired']);

/**
 * What makes two refusals the same: code, service, amount and rail; for a stopped agent or an ended
 * policy the code and rail alone (an agent varying its asks would otherwise write each one, and push
 * every other agent's refusals out of the owner's list; each rail's is kept, as every refusal's is).
 */
const sameRefusalKey = (code: ErrorCode, asked: { service: string; amount: string; rail: Rail | null }) =>
  WHATEVER_ASKED.has(code) ? `${code}|${asked.rail}` : `${code}|${asked.service}|${asked.amount}|${asked.rail}`;

const REFUSALS = new Set<ErrorCode>([
  'agent_suspended',
  'policy_expired',
  'service_not_allowed',
  'price_above_registry',
  'max_per_payment_exceeded',
  'cooldown_active',
  'daily_budget_exceeded',
  'budget_exceeded',
  'insufficient_funds',
]);

/**
 * Whether a refusal counts toward the agent's breaker: the agent's own new attempt only. Not the
 * owner's payment from its wallet, not the answer to a retry under an Idempotency-Key, and not a
 * stopped agent's or an ended policy's refusal (the agent is stopped already, or the owner's end says
 * why; a breaker's words would hide it).
 */
const countsForBreaker = (principal: Principal, error: CofferError): boolean =>
  principal.kind === 'agent' && !(error instanceof RepeatedFailure) && error.code !== 'agent_suspended' && error.code !== 'policy_expired';

/**
 * The refusal that tripped the breaker, saying so after its own words (the log and the event keep
 * those alone): an agent told only "budget exceeded" would try again and meet agent_suspended
 * unexplained. No Retry-After: waiting frees nothing, only the owner resumes it.
 */
const trippedBreaker = (error: CofferError, agentId: string, reason: string) =>
  new CofferError(error.code, `${error.message}; then ${stoppedByBreakerWords(agentId, reason)}`, {
    cause: error,
    agentStopped: { reason },
  });

/**
 * Runs a payment; a policy refusal it throws is written down for the owner (at most once per agent
 * while it repeats) and announced as `payment_refused`. A payment that goes through forgets the last
 * refusals, so the next one is always written.
 */
export async function recordingRefusals<T>(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  /**
   * What was asked, on which rail (null where no offer's rail was chosen): read once refused, as an
   * x402 purchase may have moved to the other rail of its offer by then.
   */
  askedNow: () => { service: string; amount: string; rail: Rail | null },
  run: () => Promise<T>,
): Promise<T> {
  const { owner } = principal;
  try {
    const result = await run();
    ctx.state.lastRefusals.forget(`${owner}|${agentId}`);
    return result;
  } catch (error) {
    if (error instanceof CofferError && REFUSALS.has(error.code)) {
      const asked = askedNow();
      const micro = tryParseUsdc(asked.amount);
      const amount = micro === null ? asked.amount : formatUsdc(micro);
      const { service, rail } = asked;
      if (!ctx.state.lastRefusals.repeats(`${owner}|${agentId}`, sameRefusalKey(error.code, { service, amount, rail }), ctx.clock.now())) {
        try {
          ctx.store.recordRefusal(
            { owner, agentId, service, amount, rail, code: error.code, message: error.message, at: ctx.clock.now() },
            { perOwner: REFUSALS_KEPT, perAgent: REFUSALS_KEPT_PER_AGENT },
          );
        } catch {
          // The refusal itself stands: failing to note it must not turn it into another answer.
        }
      }
      ctx.events.emit({
        type: 'payment_refused',
        owner,
        agentId,
        code: error.code,
        message: error.message,
        amount,
        service,
        rail,
      });
      const stopped = countsForBreaker(principal, error) ? watchRefusal(ctx, owner, agentId) : null;
      if (stopped !== null) throw trippedBreaker(error, agentId, stopped);
    }
    throw error;
  }
}
