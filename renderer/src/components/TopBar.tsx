import { networkChip } from '../../../server/wire/network-words.js';
import { hrefFor, type Route } from '../lib/route.js';
import type { Theme } from '../lib/use-theme.js';
import { useDashboard } from '../state/store.js';
import { MainNav } from './MainNav.js';
import { Money } from './Money.js';

/** The bar on every page: the brand, the main pages, the treasury's balance and network, the theme switch and Sign out. */
export function TopBar({
  route,
  theme,
  onToggleTheme,
  onSignOutError,
}: {
  route: Route;
  theme: Theme;
  onToggleTheme: () => void;
  onSignOutError: (message: string) => void;
}) {
  const treasury = useDashboard((s) => s.dashboard?.treasury);
  const connection = useDashboard((s) => s.connection);
  const signOut = useDashboard((s) => s.signOut);
  return (
    <header className="top">
      <a className="brand" href={hrefFor({ page: 'overview' })}>
        Coffer
      </a>
      <MainNav route={route} />
      {treasury && (
        <span
          className={connection === 'reconnecting' ? 'top-balance stale' : 'top-balance'}
          title={treasury.baseNetwork === null ? "The treasury's USDC" : "The treasury's USDC on each rail"}
        >
          {/* With Base open, each figure names its rail and network: Solana's alone read as the whole treasury. */}
          {treasury.baseNetwork === null ? (
            <>
              <Money micro={treasury.amount} /> {chip(treasury.network)}
            </>
          ) : (
            <>
              <span className="rail-figure">
                <Money micro={treasury.amount} /> on Solana {chip(treasury.network)}
              </span>
              <span className="rail-separator" aria-hidden="true">
                {' · '}
              </span>
              <span className="rail-figure">
                {treasury.balances.base === null ? 'unknown' : <Money value={treasury.balances.base} />} on Base{' '}
                {chip(treasury.baseNetwork)}
              </span>
            </>
          )}
        </span>
      )}
      <button
        type="button"
        className="button small ghost"
        onClick={onToggleTheme}
        aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
      >
        {theme === 'dark' ? 'Light' : 'Dark'}
      </button>
      <button
        type="button"
        className="button small ghost"
        onClick={() => void signOut().catch((error: Error) => onSignOutError(error.message))}
      >
        Sign out
      </button>
    </header>
  );
}

/** A network as the chip names it (`sim`, `devnet`, `base-sepolia`). */
const chip = (network: string) => <span className={`network ${network}`}>{networkChip(network)}</span>;
