import { railName } from '../../../server/wire/rail-words.js';
import type { Rail } from '../../../server/wire/rails.js';

/**
 * The rail a payment was made or asked on, as every payment table names it; a refusal kept before Coffer
 * kept its rail has none. Named "Rail" where a phone shows the table as cards (cards-on-phone).
 */
export function RailCell({ rail }: { rail: Rail | null }) {
  return <td data-label="Rail">{rail === null ? '—' : `${railName(rail)} USDC`}</td>;
}
