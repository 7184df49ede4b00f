import { CofferError } from '../../wire/errors.js';
import { requireAgentScope, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { formatUsdc, parseAmount } from '../../wire/money.js';
import { pay } from '../payments/pay.js';
import { payHeld } from '../payments/held.js';
import type { HeldPaymentLook } from '../approvals/carriers.js';
import { done, type Outcome } from '../outcome.js';
import { newId } from '../ids.js';
import { moveMoney, reservedWith, type SignedTransfer } from '../transfers/lifecycle.js';
import { randomBytes } from 'node:crypto';
import type { ApprovalRecord, GenerationTask, ModelRecord, PaymentRecord, RefundRecord } from '../ports/store.js';
import type { GenerateBody } from '../../wire/schemas.js';
import { iso } from '../../wire/views.js';
import type { ImageTasks, TaskRefund, TaskView } from '../../wire/answers/generation.js';
import type { AgentStoppedByIt } from '../../wire/answers/payments.js';
import { quotedIdOr } from '../../wire/quoted-id.js';

/** The registry id every generation is paid to (and that an allowedServices list must name). */
export const IMAGE_SERVICE_ID = 'image-generate';

const refundView = (refund: RefundRecord): TaskRefund => ({
  amount: formatUsdc(refund.amount),
  currency: 'USDC' as const,
  status: refund.status,
  to: refund.destination,
  txSignature: refund.txSignature,
  timestamp: iso(refund.settledAt ?? refund.createdAt),
});

const taskView = (task: GenerationTask, refund: RefundRecord | null = null): TaskView => ({
  taskId: task.id,
  status: task.status,
  estimatedCost: formatUsdc(task.estimatedCost),
  modelId: task.modelId,
  resolution: task.resolution,
  paymentId: task.paymentId,
  createdAt: iso(task.createdAt),
  ...(task.status === 'success'
    ? { resultUrl: task.resultUrl, cost: formatUsdc(task.cost ?? task.estimatedCost), currency: 'USDC' as const }
    : {}),
  ...(task.status === 'failed' ? { error: task.error } : {}),
  // A failed generation gives its price back: the task says how far that got.
  ...(refund === null ? {} : { refund: refundView(refund) }),
});

const viewOf = (ctx: EngineContext, task: GenerationTask) => taskView(task, ctx.store.findRefundByPayment(task.paymentId));

function newTask(
  owner: string,
  agentId: string,
  model: ModelRecord,
  body: GenerateBody,
  price: string,
  paymentId: string,
  now: number,
): GenerationTask {
  return {
    id: `tsk_${randomBytes(12).toString('base64url')}`,
    owner,
    agentId,
    modelId: model.id,
    resolution: body.resolution,
    prompt: body.prompt,
    status: 'queued',
    estimatedCost: parseAmount(price),
    cost: null,
    paymentId,
    resultUrl: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Accepts a generation: checks the model and resolution, charges the agent's wallet the model's price
 * (a payment like any other: policy checks, ledger, chain) with its task written in the same commit
 * as the payment's reservation, and hands the work to the image provider once the payment is
 * confirmed. Without a provider nothing is charged; a generation that fails is refunded.
 */
export async function generate(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  body: GenerateBody,
  idempotencyKey: string | null,
): Promise<Outcome<TaskView>> {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  const model = ctx.store.getModel(body.modelId);
  if (model === null || !model.enabled) throw new CofferError('model_not_found', `no enabled model "${body.modelId}"`);
  const price = model.pricing[body.resolution];
  if (price === undefined) {
    throw new CofferError('invalid_resolution', `model "${model.id}" has no price for ${body.resolution}`);
  }
  if (ctx.imageProvider === null) {
    throw new CofferError('provider_unavailable', 'no image provider is configured (set COFFER_IMAGE_PROVIDER_URL); nothing was charged');
  }
  const paid = await paidWithTask(ctx, (alsoWrite) =>
    pay(
      ctx,
      principal,
      agentId,
      {
        service: IMAGE_SERVICE_ID,
        amount: price,
        currency: 'USDC',
        description: `${model.displayName} ${body.resolution}: ${body.prompt.slice(0, 120)}`,
      },
      idempotencyKey,
      {
        // The description holds only the prompt's start: the whole request decides what a key may replay.
        fingerprint: JSON.stringify([model.id, body.resolution, body.prompt]),
        // What is bought is this model at this resolution: its own price is the listed one.
        listedPrice: parseAmount(price),
        alsoWrite: (row) => alsoWrite(newTask(principal.owner, agentId, model, body, price, row.id, row.createdAt)),
        // Held for the owner, the purchase is carried out when approved (generateHeld).
        purchase: { kind: 'image', modelId: model.id, resolution: body.resolution, prompt: body.prompt },
      },
    ),
  );
  if (paid.kind !== 'done') return paid;
  return done({ ...taskBought(ctx, paid.result.paymentId), ...stoppedBy(paid.result) });
}

/** The payment's word that it stopped its agent (its breaker tripped), carried into the task it bought. */
const stoppedBy = ({ agentStopped }: AgentStoppedByIt) => (agentStopped === undefined ? {} : { agentStopped });

/**
 * A payment that buys an image task, written in the payment's own commit (so no crash leaves one
 * without the other). The payment failed: its task fails too (nothing was charged); its fate not
 * known yet: the task waits, and is started or failed when reconciliation learns it.
 */
async function paidWithTask<T>(ctx: EngineContext, paying: (alsoWrite: (task: GenerationTask) => void) => Promise<T>): Promise<T> {
  let reserved: GenerationTask | null = null;
  try {
    return await paying((task) => {
      reserved = task;
      ctx.store.insertTask(task);
    });
  } catch (error) {
    if (reserved !== null) carryOn(ctx, reserved);
    throw error;
  }
}

/** The task a payment bought, as accepted (queued) or as it stands for a replay; its work then starts. */
function taskBought(ctx: EngineContext, paymentId: string): TaskView {
  // A retry with the same Idempotency-Key finds the task its payment bought (written in the payment's commit).
  const task = ctx.store.findTaskByPayment(paymentId);
  if (task === null) throw new CofferError('internal', `payment ${paymentId} bought no image task`);
  const answer = viewOf(ctx, task);
  carryOn(ctx, task);
  return answer;
}

/**
 * An image the owner said yes to (its payment was held: the policy asks above its price): paid now
 * as a held payment is (payments/held.ts payHeld), its task written in the payment's commit, then made.
 * Answers the task, as /generate does.
 */
export async function generateHeld(
  ctx: EngineContext,
  owner: Principal,
  approval: ApprovalRecord,
  look: HeldPaymentLook | null,
): Promise<Record<string, unknown>> {
  const asked = approval.request.purchase as { modelId: string; resolution: GenerateBody['resolution']; prompt: string };
  const model = ctx.store.getModel(asked.modelId);
  if (model === null || !model.enabled) throw new CofferError('model_not_found', `no enabled model "${asked.modelId}"`);
  const price = model.pricing[asked.resolution];
  if (price === undefined) throw new CofferError('invalid_resolution', `model "${model.id}" has no price for ${asked.resolution}`);
  const body = { modelId: model.id, resolution: asked.resolution, prompt: asked.prompt };
  const paid = await paidWithTask(ctx, (alsoWrite) =>
    payHeld(ctx, owner, approval, look, (row) => alsoWrite(newTask(row.owner, row.agentId, model, body, price, row.id, row.createdAt))),
  );
  return { ...taskBought(ctx, String(paid.paymentId)), ...stoppedBy(paid) };
}

export function readTask(ctx: EngineContext, principal: Principal, agentId: string, taskId: string): TaskView {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  const task = ctx.store.getTask(principal.owner, agentId, taskId);
  if (task === null) throw new CofferError('task_not_found', `no task ${quotedIdOr(taskId, 'with that id')} for agent "${agentId}"`);
  return viewOf(ctx, task);
}

const TASK_LIST_DEFAULT_LIMIT = 20;

/** An agent's image tasks, newest first, with their prompts (the owner's view of what was made). */
export function listTasks(ctx: EngineContext, principal: Principal, agentId: string, limit = TASK_LIST_DEFAULT_LIMIT): ImageTasks {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  return { tasks: ctx.store.listTasks(principal.owner, agentId, limit).map((task) => ({ ...viewOf(ctx, task), prompt: task.prompt })) };
}

/**
 * Carries on what a previous run (or an unreachable chain) left: tasks whose payment is confirmed are
 * generated, tasks whose payment failed are failed (nothing was charged), and failed tasks that were
 * paid and not given back are refunded. `retryFailedRefunds` (at start) also tries again the refunds
 * the chain refused before; the periodic chain watch does not, so a refund it cannot make is not
 * attempted every 15 s.
 */
export function resumeTasks(ctx: EngineContext, options: { retryFailedRefunds: boolean } = { retryFailedRefunds: true }): number {
  const open = ctx.store.openTasks();
  for (const task of open) carryOn(ctx, task);
  for (const task of ctx.store.tasksOwedRefunds(options.retryFailedRefunds)) track(ctx, task.id, refund(ctx, task));
  return open.length;
}

/** Resolves when every background generation (and its refund) has settled (for shutdown and tests). */
export async function settleTasks(ctx: EngineContext): Promise<void> {
  const jobs = ctx.state.tasksRunning;
  while (jobs.size > 0) await Promise.allSettled([...jobs.values()]);
}

/** Starts a paid task; fails one whose payment failed; leaves one whose payment is still pending. */
function carryOn(ctx: EngineContext, task: GenerationTask): void {
  if (task.status !== 'queued' && task.status !== 'generating') return;
  const payment = ctx.store.getPayment(task.paymentId);
  if (payment?.status === 'confirmed') startTask(ctx, task);
  else if (payment?.status === 'failed') {
    updateTask(ctx, task, {
      status: 'failed',
      error: `the payment did not go through (${payment.errorCode ?? 'failed'}); nothing was charged`,
    });
  }
}

function updateTask(
  ctx: EngineContext,
  task: GenerationTask,
  change: Pick<GenerationTask, 'status'> & Partial<Pick<GenerationTask, 'cost' | 'resultUrl' | 'error'>>,
): void {
  ctx.store.updateTask(task.id, {
    status: change.status,
    cost: change.cost ?? null,
    resultUrl: change.resultUrl ?? null,
    error: change.error ?? null,
    updatedAt: ctx.clock.now(),
  });
  if (change.status !== 'queued')
    ctx.events.emit({ type: 'task', owner: task.owner, agentId: task.agentId, taskId: task.id, status: change.status });
}

function track(ctx: EngineContext, taskId: string, job: Promise<void>): void {
  const jobs = ctx.state.tasksRunning;
  // A task's job records its own outcome; what it could not record (the data dir closed under it) is said here.
  const settled = job.catch((error: Error) => ctx.log(`image task ${taskId} stopped: ${error.message}; the next start takes it up again`));
  jobs.set(taskId, settled);
  void settled.finally(() => {
    if (jobs.get(taskId) === settled) jobs.delete(taskId);
  });
}

function startTask(ctx: EngineContext, task: GenerationTask): void {
  if (ctx.state.tasksRunning.has(task.id)) return;
  const provider = ctx.imageProvider;
  track(
    ctx,
    task.id,
    (async () => {
      if (provider === null) {
        await fail(ctx, task, 'no image provider is configured');
        return;
      }
      updateTask(ctx, task, { status: 'generating' });
      let url: string;
      try {
        ({ url } = await provider.generate({ prompt: task.prompt, modelId: task.modelId, resolution: task.resolution as '1k' }));
      } catch (error) {
        await fail(ctx, task, (error as Error).message.slice(0, 500));
        return;
      }
      updateTask(ctx, task, { status: 'success', resultUrl: url, cost: task.estimatedCost });
      // A result that cannot be recorded (the data dir closed under it) leaves the task open: the next
      // start picks it up again.
    })(),
  );
}

/**
 * The task failed: it is marked so, then its payment given back. A crash in between leaves a failed
 * task owed a refund, which the next start (or the chain watch) finds and refunds.
 */
async function fail(ctx: EngineContext, task: GenerationTask, reason: string): Promise<void> {
  updateTask(ctx, task, { status: 'failed', error: reason });
  await refund(ctx, task);
}

/**
 * Gives a failed task's payment back, through the lifecycle of every move of money, from the treasury
 * that was paid to the agent's wallet. Nothing is given when the payment is not confirmed, was refunded
 * already (or is being), or went to an address Coffer holds no key for (a payment made before
 * generation was paid to the treasury). An archived agent's refund stays in the treasury, recorded at
 * once: its wallet is empty and watched by no one. What could not be sent now is said in the log; its
 * row (or its absence) tells the next start what to do.
 */
async function refund(ctx: EngineContext, task: GenerationTask): Promise<void> {
  const payment = paymentOwedBack(ctx, task);
  if (payment === null) return;
  if (getAgentOrThrow(ctx, payment.owner, payment.agentId).archivedAt !== null) {
    keepInTreasury(ctx, task);
    return;
  }
  const agent = getAgentOrThrow(ctx, payment.owner, payment.agentId);
  const id = newId('rfd');
  try {
    await moveMoney(ctx, payment.owner, {
      kind: 'refund',
      actor: 'system',
      key: null,
      sentBy: 'coffer',
      sign: () =>
        ctx.chain.prepareTransfer({
          from: payment.owner,
          to: agent.walletAddress,
          amount: payment.amount,
          memo: `coffer refund ${payment.id}`,
          reference: id,
          feePayer: payment.owner,
          createRecipientAccount: true,
        }),
      // Again in the write: another refund, or the agent's archive, may have come first.
      reserve: (signed) => {
        if (paymentOwedBack(ctx, task) === null || getAgentOrThrow(ctx, agent.owner, agent.agentId).archivedAt !== null) {
          throw new NoLongerOwed();
        }
        return refundRow(ctx, id, task, payment, 'agent', signed);
      },
    });
  } catch (error) {
    if (error instanceof NoLongerOwed) return refund(ctx, task);
    ctx.log(`refund ${id} of payment ${payment.id} was not sent now: ${(error as Error).message}`);
  }
}

/** A refund found, in its reservation, that it is no longer owed (or owed to the treasury). */
class NoLongerOwed extends Error {}

/** The task's payment when it is owed back: confirmed, paid to the treasury, not refunded or being refunded. */
function paymentOwedBack(ctx: EngineContext, task: GenerationTask): PaymentRecord | null {
  const payment = ctx.store.getPayment(task.paymentId);
  if (payment === null || payment.status !== 'confirmed' || payment.refundedAt !== null || payment.recipient !== payment.owner) return null;
  const earlier = ctx.store.findRefundByPayment(payment.id);
  return earlier !== null && earlier.status !== 'failed' ? null : payment;
}

/** An archived agent's refund: recorded as given, kept in the treasury the payment went to (nothing moves). */
function keepInTreasury(ctx: EngineContext, task: GenerationTask): void {
  ctx.store.transaction(() => {
    const payment = paymentOwedBack(ctx, task);
    if (payment === null) return;
    const row = refundRow(ctx, newId('rfd'), task, payment, 'treasury', { txSignature: null, txWire: null, lifetimeEnd: null });
    ctx.store.insertTransfer(row);
    ctx.store.settleTransfer(row, 'confirmed', null, row.createdAt);
    const detail = { amount: formatUsdc(row.amount), paymentId: row.paymentId, taskId: row.taskId };
    audit(ctx, { actor: 'system', owner: row.owner, agentId: row.agentId, action: 'refund.kept_in_treasury', detail });
  });
}

const refundRow = (
  ctx: EngineContext,
  id: string,
  task: GenerationTask,
  payment: PaymentRecord,
  destination: RefundRecord['destination'],
  signed: SignedTransfer,
): RefundRecord => ({
  kind: 'refund',
  id,
  destination,
  owner: payment.owner,
  agentId: payment.agentId,
  paymentId: payment.id,
  taskId: task.id,
  amount: payment.amount,
  ...reservedWith(ctx, signed, null),
});
