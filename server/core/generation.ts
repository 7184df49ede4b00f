import { CofferError } from './errors.js';
import { requireAgentScope, type Principal } from './auth.js';
import type { EngineContext } from './context.js';
import { getAgentOrThrow } from './agents.js';
import { formatUsdc, parseAmount } from './money.js';
import { pay } from './payments.js';
import { randomBytes } from 'node:crypto';
import type { GenerationTask } from './ports/store.js';
import type { GenerateBody } from './schemas.js';
import { iso } from './views.js';

/** The registry id every generation is paid to (and that an allowedServices list must name). */
export const IMAGE_SERVICE_ID = 'image-generate';

const running = new WeakMap<EngineContext, Set<Promise<void>>>();

export const taskView = (task: GenerationTask) => ({
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
});

/**
 * Accepts a generation: checks the model and resolution, charges the agent's wallet the model's price
 * (a payment like any other: policy checks, ledger, chain), records the task as queued and hands the
 * work to the image provider in the background. Without a provider nothing is charged.
 */
export async function generate(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  body: GenerateBody,
  idempotencyKey: string | null,
) {
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
  const payment = await pay(
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
    },
  );
  // A retry with the same Idempotency-Key finds the task its payment bought.
  const existing = ctx.store.findTaskByPayment(payment.paymentId);
  if (existing) return taskView(existing);

  const now = ctx.clock.now();
  const task: GenerationTask = {
    id: `tsk_${randomBytes(12).toString('base64url')}`,
    owner: principal.owner,
    agentId,
    modelId: model.id,
    resolution: body.resolution,
    prompt: body.prompt,
    status: 'queued',
    estimatedCost: parseAmount(price),
    cost: null,
    paymentId: payment.paymentId,
    resultUrl: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
  ctx.store.insertTask(task);
  startTask(ctx, task);
  return taskView(task);
}

export function readTask(ctx: EngineContext, principal: Principal, agentId: string, taskId: string) {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  const task = ctx.store.getTask(principal.owner, agentId, taskId);
  if (task === null) throw new CofferError('task_not_found', `no task "${taskId}" for agent "${agentId}"`);
  return taskView(task);
}

const TASK_LIST_DEFAULT_LIMIT = 20;

/** An agent's image tasks, newest first, with their prompts (the owner's view of what was made). */
export function listTasks(ctx: EngineContext, principal: Principal, agentId: string, limit = TASK_LIST_DEFAULT_LIMIT) {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  return { tasks: ctx.store.listTasks(principal.owner, agentId, limit).map((task) => ({ ...taskView(task), prompt: task.prompt })) };
}

/** Picks up tasks a previous run left queued or generating: they are paid for, so they are finished. */
export function resumeTasks(ctx: EngineContext): number {
  const open = ctx.store.openTasks();
  for (const task of open) startTask(ctx, task);
  return open.length;
}

/** Resolves when every background generation has settled (for shutdown and tests). */
export async function settleTasks(ctx: EngineContext): Promise<void> {
  while ((running.get(ctx)?.size ?? 0) > 0) await Promise.allSettled([...(running.get(ctx) ?? [])]);
}

function startTask(ctx: EngineContext, task: GenerationTask): void {
  const provider = ctx.imageProvider;
  const update = (change: Pick<GenerationTask, 'status'> & Partial<Pick<GenerationTask, 'cost' | 'resultUrl' | 'error'>>) => {
    ctx.store.updateTask(task.id, {
      status: change.status,
      cost: change.cost ?? null,
      resultUrl: change.resultUrl ?? null,
      error: change.error ?? null,
      updatedAt: ctx.clock.now(),
    });
    if (change.status !== 'queued') ctx.events.emit({ type: 'task', owner: task.owner, agentId: task.agentId, taskId: task.id, status: change.status });
  };
  const job = (async () => {
    if (provider === null) {
      update({ status: 'failed', error: 'no image provider is configured' });
      return;
    }
    update({ status: 'generating' });
    try {
      const { url } = await provider.generate({ prompt: task.prompt, modelId: task.modelId, resolution: task.resolution as '1k' });
      update({ status: 'success', resultUrl: url, cost: task.estimatedCost });
    } catch (error) {
      update({ status: 'failed', error: (error as Error).message.slice(0, 500) });
    }
    // A result that cannot be recorded (the data dir closed under it) leaves the task open: the next
    // start picks it up again.
  })().catch(() => undefined);
  let jobs = running.get(ctx);
  if (!jobs) {
    jobs = new Set();
    running.set(ctx, jobs);
  }
  jobs.add(job);
  void job.finally(() => jobs.delete(job));
}
