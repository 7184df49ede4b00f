import { useEffect, useState } from 'react';
import type { ImageTask } from '../api/types.js';
import { useDashboard, useTimeZone } from '../state/store.js';
import { dateTime } from '../lib/time.js';
import { ErrorNote } from './ErrorNote.js';
import { Money } from './Money.js';
import { TableHead } from './TableHead.js';

/** What became of a failed task's money. */
const refundNote = (refund: NonNullable<ImageTask['refund']>): string =>
  refund.status === 'confirmed'
    ? `${refund.amount} USDC refunded`
    : refund.status === 'pending'
      ? `refunding ${refund.amount} USDC…`
      : `refund failed; tried again at the next start`;

/** An agent's image tasks: prompt, model, cost, status (a failed one's refund), and a link to each finished image. */
export function ImageTasks({ agentId }: { agentId: string }) {
  const { client, dashboard } = useDashboard();
  const timeZone = useTimeZone();
  const [tasks, setTasks] = useState<ImageTask[]>([]);
  const [error, setError] = useState<string | null>(null);
  // Tasks move on without a payment (generating, done): read them again at every refresh.
  useEffect(() => {
    client?.tasks(agentId).then(
      (r) => setTasks(r.tasks),
      (e: Error) => setError(e.message),
    );
  }, [client, agentId, dashboard]);
  if (tasks.length === 0) return <ErrorNote error={error} />;
  return (
    <section className="card" aria-labelledby="images-title">
      <h3 id="images-title">Images</h3>
      <div className="table-wrap">
        <table>
          <TableHead columns={['When', 'Prompt', 'Model', { label: 'Cost', num: true }, 'Status']} />
          <tbody>
            {tasks.map((task) => (
              <tr key={task.taskId} data-testid="image-task">
                <td className="nowrap">{dateTime(task.createdAt, timeZone)}</td>
                <td>{task.prompt}</td>
                <td className="nowrap">
                  {task.modelId} · {task.resolution}
                </td>
                <td className="num">
                  <Money value={task.estimatedCost} />
                </td>
                <td>
                  {task.status === 'success' && task.resultUrl && /^https?:\/\//.test(task.resultUrl) ? (
                    <a href={task.resultUrl} target="_blank" rel="noreferrer noopener">
                      Open image
                    </a>
                  ) : (
                    <span className={`pill ${task.status === 'failed' ? 'failed' : 'pending'}`} title={task.error ?? undefined}>
                      {task.status}
                    </span>
                  )}
                  {task.refund && <div className="muted">{refundNote(task.refund)}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
