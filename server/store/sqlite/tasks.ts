/** SQLite adapter of the tasks port: image generation tasks. */
import type { GenerationTask, TaskStore } from '../../core/ports/store.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { allRows, bigintStatement, oneRow, optionalBigint, optionalText, text, type Row } from './rows.js';

export function toTask(row: Row): GenerationTask {
  return {
    id: text(row.id),
    owner: text(row.owner),
    agentId: text(row.agent_id),
    modelId: text(row.model_id),
    resolution: text(row.resolution),
    prompt: text(row.prompt),
    status: row.status as GenerationTask['status'],
    estimatedCost: BigInt(row.estimated_cost as bigint),
    cost: optionalBigint(row.cost),
    paymentId: text(row.payment_id),
    resultUrl: optionalText(row.result_url),
    error: optionalText(row.error),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function createTaskStore(db: SqliteDatabase): TaskStore {
  const stmts = {
    insertTask: db.prepare(
      `INSERT INTO generation_tasks (id, owner, agent_id, model_id, resolution, prompt, status, estimated_cost, cost, payment_id,
         result_url, error, created_at, updated_at)
       VALUES (@id, @owner, @agentId, @modelId, @resolution, @prompt, @status, @estimatedCost, @cost, @paymentId,
         @resultUrl, @error, @createdAt, @updatedAt)`,
    ),
    getTask: bigintStatement(db, 'SELECT * FROM generation_tasks WHERE owner = ? AND agent_id = ? AND id = ?'),
    findTaskByPayment: bigintStatement(db, 'SELECT * FROM generation_tasks WHERE payment_id = ?'),
    updateTask: db.prepare(
      'UPDATE generation_tasks SET status = @status, cost = @cost, result_url = @resultUrl, error = @error, updated_at = @updatedAt WHERE id = @id',
    ),
    openTasks: bigintStatement(db, "SELECT * FROM generation_tasks WHERE status IN ('queued', 'generating') ORDER BY created_at"),
    listTasks: bigintStatement(
      db,
      'SELECT * FROM generation_tasks WHERE owner = ? AND agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
    ),
  };
  return {
    insertTask: (task) => void stmts.insertTask.run(task),
    getTask: (owner, agentId, id) => oneRow(stmts.getTask, toTask, owner, agentId, id),
    findTaskByPayment: (paymentId) => oneRow(stmts.findTaskByPayment, toTask, paymentId),
    updateTask: (id, change) => void stmts.updateTask.run({ id, ...change }),
    openTasks: () => allRows(stmts.openTasks, toTask),
    listTasks: (owner, agentId, limit) => allRows(stmts.listTasks, toTask, owner, agentId, limit),
  };
}
