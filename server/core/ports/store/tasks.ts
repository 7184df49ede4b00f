import type { TaskStatus } from '../../../wire/answers/generation.js';

/** Port: image generation tasks, each paid for by one payment. */
export type { TaskStatus };

export interface GenerationTask {
  id: string;
  owner: string;
  agentId: string;
  modelId: string;
  resolution: string;
  prompt: string;
  status: TaskStatus;
  estimatedCost: bigint;
  cost: bigint | null;
  paymentId: string;
  resultUrl: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface TaskStore {
  insertTask(task: GenerationTask): void;
  getTask(owner: string, agentId: string, id: string): GenerationTask | null;
  findTaskByPayment(paymentId: string): GenerationTask | null;
  updateTask(id: string, change: Pick<GenerationTask, 'status' | 'cost' | 'resultUrl' | 'error' | 'updatedAt'>): void;
  openTasks(): GenerationTask[];
  /** An agent's tasks, newest first. */
  listTasks(owner: string, agentId: string, limit: number): GenerationTask[];
}
