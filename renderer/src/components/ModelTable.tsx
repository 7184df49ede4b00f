import type { Model } from '../api/types.js';
import { Money } from './Money.js';
import { TableHead } from './TableHead.js';

/** The image models, each with its price per resolution (a dash where it offers none). */
export function ModelTable({ models }: { models: Model[] }) {
  return (
    <div className="table-wrap">
      <table>
        <TableHead columns={['Model', 'Provider', { label: '1k', num: true }, { label: '2k', num: true }, { label: '4k', num: true }]} />
        <tbody>
          {models.map((m) => (
            <tr key={m.id}>
              <td>
                <strong>{m.displayName}</strong> <code>{m.id}</code>
                <div className="muted">{m.description}</div>
              </td>
              <td>{m.provider}</td>
              {(['1k', '2k', '4k'] as const).map((r) => (
                <td key={r} className="num">
                  {m.pricing[r] ? <Money value={m.pricing[r]} /> : '—'}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
