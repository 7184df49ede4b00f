import { useEffect, useState } from 'react';
import type { FundsMove } from '../api/types.js';
import { dateTime, shortTime } from '../lib/time.js';
import { fundsMoveStanding } from '../../../server/wire/funds-move-words.js';
import { useDashboard, useTimeZone } from '../state/store.js';
import { Money } from './Money.js';
import { TableHead } from './TableHead.js';
import { RailCell } from './RailCell.js';
import { ErrorNote } from './ErrorNote.js';

/** How many of an agent's moves its page lists; `coffer allocations AGENT` lists up to 500. */
const SHOWN = 10;

const capitalized = (words: string): string => words.charAt(0).toUpperCase() + words.slice(1);

/**
 * What moved between the treasury and this agent, newest first, each on its rail: read again at every
 * refresh of the dashboard (each move's settlement is an event that refreshes it), so a move that
 * fails, its balances unchanged, says so too.
 */
export function FundsMovesTable({ agentId }: { agentId: string }) {
  const client = useDashboard((s) => s.client);
  const reads = useDashboard((s) => s.reads);
  const timeZone = useTimeZone();
  const [moves, setMoves] = useState<FundsMove[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!client) return;
    let current = true;
    client.allocations({ agentId, limit: SHOWN }).then(
      (answer) => {
        if (!current) return;
        setMoves(answer.allocations);
        setError(null);
      },
      (e: Error) => {
        if (current) setError(e.message);
      },
    );
    return () => {
      current = false;
    };
  }, [client, agentId, reads]);
  return (
    <div className="amount-form" data-testid="funds-moves">
      <span className="label-like">Moved to and from the treasury</span>
      <ErrorNote error={error} />
      {moves !== null && moves.length === 0 && <p className="empty">Nothing yet.</p>}
      {moves !== null && moves.length === SHOWN && (
        <p className="hint">
          The last {SHOWN}; coffer allocations {agentId} lists more.
        </p>
      )}
      {moves !== null && moves.length > 0 && (
        <div className="table-wrap">
          {/* On a phone, a card per move, each figure named (cards-on-phone). */}
          <table className="cards-on-phone">
            <TableHead columns={['When', 'Moved', { label: 'Amount', num: true }, 'Rail', 'Status']} />
            <tbody>
              {moves.map((move) => (
                <tr key={move.id} data-testid="funds-move">
                  <td data-label="When" className="nowrap" title={dateTime(move.timestamp, timeZone)}>
                    {shortTime(move.timestamp, new Date(), timeZone)}
                  </td>
                  <td data-label="Moved">{move.kind === 'allocation' ? 'Allocated' : 'Returned'}</td>
                  <td data-label="Amount" className="num">
                    <Money value={move.amount} />
                  </td>
                  <RailCell rail={move.rail} />
                  <td data-label="Status" title={move.txSignature ?? undefined}>
                    {capitalized(fundsMoveStanding(move))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
