import type { SpendRecord } from '../api/types.js';
import { dateTime } from '../lib/time.js';
import { useTimeZone } from '../state/store.js';
import { Money } from './Money.js';
import { PaymentStatus } from './PaymentStatus.js';
import { PaymentVenue } from './PaymentVenue.js';
import { RailCell } from './RailCell.js';
import { TableHead } from './TableHead.js';

/** What an agent paid, newest first, each on its rail; when, in the owner's time zone, as the agent page's other times. */
export function SpendHistoryTable({ history }: { history: SpendRecord[] }) {
  const timeZone = useTimeZone();
  if (history.length === 0) return <p className="empty">No payments yet.</p>;
  return (
    <div className="table-wrap">
      {/* On a phone, a card per payment, each figure named (cards-on-phone). */}
      <table className="cards-on-phone">
        <TableHead columns={['When', 'Venue', 'Description', { label: 'Amount', num: true }, 'Rail', 'Status']} />
        <tbody>
          {history.map((p) => (
            <tr key={p.id}>
              <td data-label="When" className="nowrap">
                {dateTime(p.timestamp, timeZone)}
              </td>
              <td data-label="Venue">
                <PaymentVenue name={p.service} protocol={p.protocol} resource={p.resource} recipient={p.recipient} />
              </td>
              <td data-label="Description" className="muted">
                {p.description}
              </td>
              <td data-label="Amount" className="num">
                <Money value={p.amount} />
              </td>
              <RailCell rail={p.rail} />
              <td data-label="Status">
                <PaymentStatus status={p.status} errorCode={p.errorCode} protocol={p.protocol} approvedAt={p.approvedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
