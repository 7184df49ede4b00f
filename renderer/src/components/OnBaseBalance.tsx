import { Money } from './Money.js';

/**
 * A wallet's balance on Base, as the treasury's card and each agent's row and page word it: unknown
 * (not zero) while the rail is open and its node did not answer. Shown only where the rail is open.
 */
export function OnBaseBalance({ balance }: { balance: string | null }) {
  return <>On Base: {balance === null ? 'balance unknown now' : <Money value={balance} />}</>;
}
