/**
 * Typed errors with stable codes. Every door (HTTP, MCP, CLI, tray) maps the same `code`;
 * HTTP statuses live in one table in server/http/error-status.ts.
 */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_json',
  'request_timeout',
  'body_too_large',
  'not_found',
  'owner_required',
  'invalid_owner',
  'owner_not_found',
  'unauthorized',
  'wrong_owner',
  'wrong_agent',
  'owner_only',
  'confirmation_required',
  'agent_not_found',
  'agent_exists',
  'agent_archived',
  'agent_has_funds',
  'invalid_agent_id',
  'invalid_amount',
  'invalid_policy',
  'invalid_limit',
  'invalid_recipient',
  'recipient_mismatch',
  'service_not_on_rail',
  'recipient_archived',
  'recipient_not_ready',
  'nonce_already_paid',
  'invalid_idempotency_key',
  'idempotency_key_reused',
  'unsupported_currency',
  'max_per_payment_exceeded',
  'daily_budget_exceeded',
  'budget_exceeded',
  'cooldown_active',
  'service_not_allowed',
  'price_above_registry',
  'price_below_registry',
  'amount_below_terms',
  'unreadable_402',
  'unsupported_offer',
  'sign_in_not_offered',
  'sign_in_wrong_origin',
  'not_paid_before',
  'payment_not_found',
  'insufficient_funds',
  'insufficient_treasury_funds',
  'agent_suspended',
  'policy_expired',
  'invalid_time_zone',
  'service_not_found',
  'invalid_facilitator_url',
  'bazaar_off',
  'bazaar_unreachable',
  'bazaar_timeout',
  'bazaar_bad_answer',
  'bazaar_answer_too_large',
  'model_not_found',
  'invalid_resolution',
  'task_not_found',
  'transaction_not_found',
  'invalid_signature',
  'provider_unavailable',
  'link_not_found',
  'approval_not_found',
  'approval_decided',
  'payment_denied',
  'approval_expired',
  'nonce_expired',
  'approval_withdrawn',
  'approval_interrupted',
  'owner_approval_required',
  'approval_mismatch',
  'too_many_requests',
  'slow_down',
  'link_expired',
  'link_used',
  'not_sim',
  'rail_unavailable',
  'no_recovery_phrase',
  'phrase_not_shown',
  'phrase_mismatch',
  'backup_unreadable',
  'backup_damaged',
  'wrong_passphrase',
  'backup_wrong_network',
  'data_dir_in_use',
  'data_dir_unusable',
  'invalid_recovery_phrase',
  'backup_folder_unusable',
  'nothing_to_recover',
  'restore_failed',
  'bad_host',
  'bad_origin',
  'shutting_down',
  'chain_unavailable',
  'wallet_key_missing',
  'chain_rejected',
  'transaction_expired',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const isErrorCode = (text: unknown): text is ErrorCode => (ERROR_CODES as readonly unknown[]).includes(text);

export class CofferError extends Error {
  readonly code: ErrorCode;
  /** Seconds the caller should wait before trying again (cooldown, slow_down). */
  readonly retryAfterSeconds: number | undefined;
  /** Set on the refusal that tripped its agent's breaker: the agent is stopped now, for `reason`. */
  readonly agentStopped: { reason: string } | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { retryAfterSeconds?: number; cause?: unknown; agentStopped?: { reason: string } } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'CofferError';
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.agentStopped = options.agentStopped;
  }
}

export const isCofferError = (value: unknown): value is CofferError => value instanceof CofferError;

/** The failure of an earlier attempt under the same Idempotency-Key, answered again to its retry: no new refusal. */
export class RepeatedFailure extends CofferError {}

/** A decision's answer: the refusal, or null when it allows. */
export type Refusal = CofferError | null;

/**
 * Where a decision's refusal leaves the engine: thrown, and so answered by every door through the
 * same code. Decisions themselves (server/core/policy/rules.ts, payments/refusals.ts, agent-lookup.ts) return values;
 * a chain of them reads `refuse(first() ?? second() ?? ...)`, in the order the refusals are said.
 */
export function refuse(refusal: Refusal): void {
  if (refusal !== null) throw refusal;
}

/** A query parameter sent more than once (`?limit=1&limit=2`), which every read takes once: said so, not as a value of the wrong type. */
export const givenTimesWords = (name: string, times: number): string => `${JSON.stringify(name)} is given ${times} times: send it once`;
