import { railName } from '../../../server/wire/rail-words.js';
import type { Rail } from '../../../server/wire/rails.js';

/** The rail a payment was made or asked on, as every payment table names it; a refusal kept before Coffer kept its rail has none. */
export function RailCell({ rail }: { rail: Rail | null }) {
  return <td>{rail === null ? '—' : `${railName(rail)} USDC`}</td>;
}
