/** The /v1 answers about image generation: a task paid for from an agent's wallet, and its refund when it failed. */
import type { AgentStoppedByIt, RefundedTo, TransferStatus } from './payments.js';

export type TaskStatus = 'queued' | 'generating' | 'success' | 'failed';

/** A failed task's price given back: how far that got. */
export type TaskRefund = {
  amount: string;
  currency: 'USDC';
  status: TransferStatus;
  to: RefundedTo;
  txSignature: string | null;
  timestamp: string;
};

/** An image task as /generate and GET /v1/agents/:id/tasks/:taskId answer it. */
export type TaskView = {
  taskId: string;
  status: TaskStatus;
  estimatedCost: string;
  modelId: string;
  resolution: string;
  paymentId: string;
  createdAt: string;
  /** Once `success`. */
  resultUrl?: string | null;
  cost?: string;
  currency?: 'USDC';
  /** Once `failed`. */
  error?: string | null;
  refund?: TaskRefund;
} & AgentStoppedByIt;

/** An image task in an agent's list, with its prompt (the owner's view of what was made). */
export type ImageTask = TaskView & {
  prompt: string;
};

export type ImageTasks = {
  tasks: ImageTask[];
};
