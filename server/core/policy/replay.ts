/**
 * A policy replayed on an agent's past payments (the what-if, what-if.ts): which of them it would have
 * refused, and which it would have held for the owner's yes, by the very decisions the pay path takes
 * (rules.ts firstRefusal, budgets.ts budgetRefusal, holds.ts holdReason), as if it had been in force
 * all along. A payment it would have refused is left out of what later ones are judged against, as it
 * would not have been made; one it would have held is counted as made (the owner said yes to it
 * then). Read from the ledger a page at a time in one pass, oldest first: each window's start only
 * moves forward, so each payment is judged in a few steps, and what is kept is running sums, not the
 * payments.
 *
 * Written once, run where the PolicyReplays port says: the SQLite adapter runs replayHistory in a
 * worker thread over its own read-only connection (server/boot/policy-replay-worker.ts), the
 * in-memory ledger in process (replaysInProcess).
 */
import { firstRefusal, type PaymentAsk } from './rules.js';
import { holdReason } from './holds.js';
import { budgetRefusal, type BudgetUsage, type BudgetedPayment } from './budgets.js';
import { inScope, type Budget, type BudgetScope } from '../../wire/policy/budget.js';
import { dailyWindow, windowSpan, type WindowSpan } from '../../wire/policy/windows.js';
import { formatUsdc } from '../../wire/money.js';
import { iso } from '../../wire/views.js';
import type { CountedPayment, RegistryStore, TransferStore } from '../ports/store.js';
import type { PolicyReplay, PolicyReplayRequest, PolicyReplays } from '../ports/policy-replays.js';
import type { Policy } from '../../wire/policy/policy.js';
import type { WhatIfExample, WhatIfTally } from '../../wire/answers/policy.js';

/** How many of the payments it would have refused are shown as examples. */
const EXAMPLES = 5;

/**
 * The payments in one scope that were made (or would have been), oldest first, with running sums.
 * Amounts are micro-USDC held as numbers: exact while every sum stays a safe integer (2^53 micro-USDC,
 * some nine billion USDC), which `add` checks; a replay adds and compares them a hundred thousand
 * times, and bigints made that most of its time.
 */
class ScopeLedger {
  /** How many payments it holds: times[i] and prefix[i + 1] for i below it. */
  length = 0;
  /** Typed arrays, grown by doubling: nothing for the collector to copy. */
  times: Float64Array = new Float64Array(1024);
  /** prefix[i]: the amount of the first i payments. */
  prefix: Float64Array = new Float64Array(1025);

  add(at: number, amount: number): void {
    const sum = this.prefix[this.length]! + amount;
    if (!Number.isSafeInteger(sum)) throw new Error('what-if: a scope spent more than 2^53 micro-USDC, past exact arithmetic');
    if (this.length === this.times.length) {
      this.times = grown(this.times, this.times.length * 2);
      this.prefix = grown(this.prefix, this.times.length + 1);
    }
    this.times[this.length] = at;
    this.length += 1;
    this.prefix[this.length] = sum;
  }
}

function grown(values: Float64Array, size: number): Float64Array {
  const bigger = new Float64Array(size);
  bigger.set(values);
  return bigger;
}

/**
 * What a scope spent in a window whose start only moves forward (payments are judged oldest first):
 * a cursor past the payments before it, not a search.
 */
class WindowReader {
  private cursor = 0;
  /** After read(): the amount and the number of the payments at `from` or later. */
  amount = 0;
  payments = 0;

  constructor(private readonly ledger: ScopeLedger) {}

  /** `from`: the window's first millisecond (null: every payment); never earlier than the last call's. */
  read(from: number | null): void {
    const { times, prefix, length } = this.ledger;
    if (from !== null) while (this.cursor < length && times[this.cursor]! < from) this.cursor += 1;
    const start = from === null ? 0 : this.cursor;
    this.amount = prefix[length]! - prefix[start]!;
    this.payments = length - start;
  }
}

/** A budget as a replay judges it: its window at each payment (a calendar period kept until it resets) and what its scope spent there. */
class BudgetTrack {
  private span: WindowSpan = { from: null, resetsAt: null };
  private readonly reader: WindowReader;
  /** Its amount in micro-USDC as a number (a limit past 2^53 still compares right with sums below it). */
  private readonly limit: number;

  constructor(
    readonly budget: Budget,
    ledger: ScopeLedger,
  ) {
    this.reader = new WindowReader(ledger);
    this.limit = Number(budget.amount ?? 0n);
  }

  private read(now: number, timeZone: string): WindowSpan {
    // windowSpan keeps calendar spans too, but under a key it builds each call; a replay asks ten
    // budgets for each of thousands of payments, so each keeps its own until it resets.
    const { from, resetsAt } = this.span;
    if (resetsAt === null || from === null || now < from || now >= resetsAt) this.span = windowSpan(this.budget.window, now, timeZone);
    this.reader.read(this.span.from);
    return this.span;
  }

  /**
   * budgets.ts `fits`, on the numbers: whether one more payment of `amount` stays within it at `now`.
   * A sum past exact numbers says no, and budgetRefusal then judges it in bigints.
   */
  fits(now: number, timeZone: string, amount: number): boolean {
    this.read(now, timeZone);
    if (this.budget.count !== null) return this.reader.payments + 1 <= this.budget.count;
    const after = this.reader.amount + amount;
    return Number.isSafeInteger(after) && after <= this.limit;
  }

  /** Its usage at `now`, as the pay path passes it to budgetRefusal. */
  usage(now: number, timeZone: string): BudgetUsage {
    const span = this.read(now, timeZone);
    return { budget: this.budget, spent: { amount: BigInt(this.reader.amount), payments: this.reader.payments }, ...span };
  }
}

const scopeKey = (scope: BudgetScope) => JSON.stringify(scope);

/**
 * Replays `policy` on `payments` (oldest first): those made before `judgedFrom` were made whatever
 * it says (they are what later ones are judged against); each from then on is judged as the pay path
 * would, against the ones it let through. Answers what it would have refused.
 */
export function replayPolicy(
  policy: Policy,
  payments: Iterable<CountedPayment>,
  judgedFrom: number,
  context: { timeZone: string; inRegistry: (serviceId: string) => boolean },
) {
  // A replay may refuse thousands of payments, each decision a CofferError: their stack traces, never
  // read here, would cost most of its time.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return replay(policy, payments, judgedFrom, context);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function replay(
  policy: Policy,
  payments: Iterable<CountedPayment>,
  judgedFrom: number,
  context: { timeZone: string; inRegistry: (serviceId: string) => boolean },
) {
  const { timeZone } = context;
  // One ledger per scope the budgets name (and every payment's), looked up once, not per payment.
  const ledgers = new Map<string, { scope: BudgetScope; ledger: ScopeLedger }>();
  const ledgerOf = (scope: BudgetScope) => {
    const key = scopeKey(scope);
    let held = ledgers.get(key);
    if (held === undefined) ledgers.set(key, (held = { scope, ledger: new ScopeLedger() }));
    return held.ledger;
  };
  const every = ledgerOf({ kind: 'all' });
  const lastDay = new WindowReader(every);
  const budgets = policy.budgets.map((budget) => new BudgetTrack(budget, ledgerOf(budget.scope)));
  const scoped = [...ledgers.values()].filter(({ scope }) => scope.kind !== 'all');
  let lastPaymentAt: number | null = null;
  // Whom the agent had paid by then, for a policy that asks before a new recipient.
  const paidRecipients = new Set<string>();
  const refused = new Tally();
  const held = new Tally();
  let judged = 0;
  for (const payment of payments) {
    const asked: PaymentAsk = {
      serviceId: payment.serviceId,
      inRegistry: context.inRegistry(payment.serviceId),
      recipient: payment.recipient,
      amount: payment.amount,
    };
    const amount = Number(payment.amount);
    if (payment.createdAt >= judgedFrom) {
      judged += 1;
      const now = payment.createdAt;
      lastDay.read(dailyWindow(now).from);
      const refusal =
        firstRefusal(policy, { now, lastPaymentAt, spentInWindow: BigInt(lastDay.amount), timeZone: () => timeZone }, asked) ??
        budgetsRefusal(budgets, asked, amount, now, timeZone);
      if (refusal !== null) {
        refused.add(payment, refusal.code, refusal.message);
        continue;
      }
      const hold = holdReason(policy, payment.amount, () => paidRecipients.has(payment.recipient));
      if (hold !== null) held.add(payment, hold.code, hold.message);
    }
    paidRecipients.add(payment.recipient);
    every.add(payment.createdAt, amount);
    for (const { scope, ledger } of scoped) if (inScope(scope, asked)) ledger.add(payment.createdAt, amount);
    lastPaymentAt = payment.createdAt;
  }
  return { payments: judged, wouldRefuse: refused.view(), wouldHold: held.view() };
}

/**
 * The pay path's budgetRefusal at `now`, its usages built only for a payment some budget refuses
 * (most fit every budget, and a replay judges thousands): the refusal is budgetRefusal's own.
 */
function budgetsRefusal(budgets: BudgetTrack[], asked: BudgetedPayment, amount: number, now: number, timeZone: string) {
  for (const track of budgets) {
    if (inScope(track.budget.scope, asked) && !track.fits(now, timeZone, amount)) {
      const usages = budgets.filter(({ budget }) => inScope(budget.scope, asked)).map((each) => each.usage(now, timeZone));
      return budgetRefusal(usages, asked, now, timeZone);
    }
  }
  return null;
}

/**
 * Payments a replay would have refused (or held): how many, how much, by code, and the first few.
 * Tallied as they are judged: a list of thousands, kept to the end, made the collector copy it.
 */
class Tally {
  private payments = 0;
  private amount = 0n;
  private readonly byCode: Record<string, number> = {};
  private readonly examples: WhatIfExample[] = [];

  add(payment: CountedPayment, code: string, message: string): void {
    this.payments += 1;
    this.amount += payment.amount;
    this.byCode[code] = (this.byCode[code] ?? 0) + 1;
    if (this.examples.length < EXAMPLES) {
      this.examples.push({
        paymentId: payment.id,
        at: iso(payment.createdAt),
        service: payment.serviceId,
        amount: formatUsdc(payment.amount),
        rail: payment.rail,
        code,
        message,
      });
    }
  }

  view(): WhatIfTally {
    return { payments: this.payments, amount: formatUsdc(this.amount), byCode: this.byCode, examples: this.examples };
  }
}

/** What a replay reads: the agent's payments that count, and whether a service is in the registry. */
export type ReplayStore = Pick<TransferStore, 'countedPayments'> & Pick<RegistryStore, 'getService'>;

/**
 * The replay a request asks for, over `store`: its payments read a page at a time as they are judged,
 * each service looked up in the registry once.
 */
export function replayHistory(store: ReplayStore, request: PolicyReplayRequest): PolicyReplay {
  const { owner, agentId, policy, since, judgedFrom, timeZone } = request;
  const registry = new Map<string, boolean>();
  const inRegistry = (serviceId: string) => {
    let known = registry.get(serviceId);
    if (known === undefined) registry.set(serviceId, (known = store.getService(serviceId) !== null));
    return known;
  };
  return replayPolicy(policy, store.countedPayments(owner, agentId, since), judgedFrom, { timeZone, inRegistry });
}

/**
 * Replays run in this thread, as they are asked (in turn: each runs to its end before it answers).
 * For a ledger in memory, which no other thread can read; the caller's turn is held meanwhile.
 */
export const replaysInProcess = (store: ReplayStore): PolicyReplays => ({
  replay: (request) => {
    try {
      return Promise.resolve(replayHistory(store, request));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  },
});
