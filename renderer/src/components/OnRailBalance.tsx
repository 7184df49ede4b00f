import type { Rail } from '../../../server/wire/rails.js';
import { railName } from '../../../server/wire/rail-words.js';
import { Money } from './Money.js';

/**
 * A wallet's balance on the rail it does not lead with, as the treasury's card and each agent's row and
 * page word it: on Base, unknown (not zero) while the rail is open and its node did not answer. Shown
 * only where the Base rail is open.
 */
export function OnRailBalance({ rail, balance }: { rail: Rail; balance: string | null }) {
  return (
    <>
      On {railName(rail)}: {balance === null ? 'balance unknown now' : <Money value={balance} />}
    </>
  );
}
