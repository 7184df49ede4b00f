/**
 * `coffer images [<agent>]`: an agent's image tasks, newest first, as its dashboard page lists them:
 * when, the prompt, the model and resolution, what it cost, and where it stands (the image's URL once
 * made; a failed one's refund). As the linked agent its own; as the owner (who-acts.ts) any agent's.
 */
import type { ImageTask } from '../../wire/answers/generation.js';
import { aligned } from '../columns.js';
import { localTime } from '../local-time.js';
import { clientFor, type Actor } from '../who-acts.js';
import { printJson } from './print-json.js';

type Out = NodeJS.WritableStream;

export async function imagesCommand(actor: Actor, args: { agentId?: string; limit?: number; json?: boolean }, out: Out = process.stdout) {
  const acting = clientFor(actor, args.agentId, `the images of ${args.agentId}`);
  // The table refuses an owner's call that names no agent.
  const agentId = acting.agentId!;
  const api = acting.api;
  const { tasks } = await api.tasks(agentId, args.limit);
  if (args.json) return printJson({ tasks }, out);
  if (tasks.length === 0) {
    out.write(`${agentId} has made no images yet.\n`);
    return 0;
  }
  const lines = aligned(tasks.map(taskCells)).split('\n');
  tasks.forEach((task, index) => out.write(`${lines[index]}\n      ${JSON.stringify(task.prompt)}\n`));
  return 0;
}

/** Where a task stands: its image's URL once made, why it failed and what became of its money, or queued/generating. */
function standing(task: ImageTask): string {
  if (task.status === 'success') return task.resultUrl ?? 'made';
  if (task.status !== 'failed') return task.status;
  const refund =
    task.refund === undefined
      ? ''
      : task.refund.status === 'confirmed'
        ? `; ${task.refund.amount} USDC refunded`
        : task.refund.status === 'pending'
          ? `; refunding ${task.refund.amount} USDC`
          : '; the refund failed, tried again at the next start';
  return `failed${task.error ? `: ${task.error}` : ''}${refund}`;
}

const taskCells = (task: ImageTask): string[] => [
  localTime(task.createdAt),
  `${task.cost ?? task.estimatedCost} USDC`,
  `${task.modelId} ${task.resolution}`,
  standing(task),
];
