/**
 * Image generation charged to an agent's wallet. Read this first: generation.ts (a task paid like any
 * payment, the work forwarded to the image provider once paid, its price given back when it fails).
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { ApprovalCarriers } from '../approvals/carriers.js';
import type { GenerateBody } from '../../wire/schemas.js';
import { payHeld } from '../payments/held.js';
import { generate, generateHeld, listTasks, readTask, resumeTasks, settleTasks } from './generation.js';

export const generationApp = (ctx: EngineContext) => ({
  generate: (p: Principal, agentId: string, body: GenerateBody, idempotencyKey: string | null) =>
    generate(ctx, p, agentId, body, idempotencyKey),
  task: (p: Principal, agentId: string, taskId: string) => readTask(ctx, p, agentId, taskId),
  tasks: (p: Principal, agentId: string, limit?: number) => listTasks(ctx, p, agentId, limit),
  resumeTasks: (options?: { retryFailedRefunds: boolean }) => resumeTasks(ctx, options),
  settleTasks: () => settleTasks(ctx),
});

/** What a held payment the owner approved carries out: the payment, and what it buys with it (an image's task, in the payment's commit). */
export const heldPaymentApprovals: Pick<ApprovalCarriers['carryOut'], 'payment'> = {
  payment: (ctx, approval, owner, look) =>
    (approval.request.purchase as { kind?: string } | undefined)?.kind === 'image'
      ? generateHeld(ctx, owner, approval, look)
      : payHeld(ctx, owner, approval, look),
};
