import { useDashboard, useTimeZone } from '../state/store.js';
import { dateTime } from '../lib/time.js';
import { readableAmount } from '../lib/money.js';
import { AmountForm } from './AmountForm.js';
import { CopyButton } from './CopyButton.js';
import { HeldNote } from './HeldNote.js';
import { Money } from './Money.js';
import { OnRailBalance } from './OnRailBalance.js';
import { QrCode } from './QrCode.js';
import { TableHead } from './TableHead.js';
import { RailCell } from './RailCell.js';
import { faucetAction, gasWords, networkWords, shortEther, testChainNote } from '../../../server/wire/network-words.js';

/** The treasury: balance, network, where to deposit, what arrived, and on sim a faucet. */
export function Treasury() {
  const { dashboard, deposits, client, refresh } = useDashboard();
  const timeZone = useTimeZone();
  if (!dashboard) return null;
  const { treasury } = dashboard;
  // Base's deposit address and faucet only where its rail is open (an account is filed all the same).
  const baseAccount = treasury.baseNetwork === null ? null : treasury.wallets.base;
  const testChain = testChainNote(treasury.baseNetwork);
  return (
    <section className="card treasury" aria-labelledby="treasury-title">
      <div className="treasury-main">
        <h2 id="treasury-title">Treasury</h2>
        <p className="big-number" data-testid="treasury-balance">
          <Money micro={treasury.amount} />
        </p>
        <p className="muted">
          {/* The big figure is Solana's; Base's stands beside it below (a figure with no rail read as the whole treasury). */}
          <span data-testid="treasury-rail">
            on Solana, <span className={`network ${treasury.network}`}>{networkWords(treasury.network)}</span>
          </span>
        </p>
        {/* The agents' payments over both rails, held ones among them: not a part of the Solana figure above. */}
        <p className="muted" data-testid="agents-spent">
          Agents' payments in the last 24 h{baseAccount === null ? '' : ', on both rails'}: <Money value={dashboard.spent24h} />{' '}
          <HeldNote held={dashboard.held24h} />
        </p>
        <div className="deposit-address">
          <span className="label">Deposit address (USDC on Solana)</span>
          <code className="address" data-testid="deposit-address">
            {treasury.walletAddress}
          </code>
          <CopyButton text={treasury.walletAddress} label="Copy address" />
        </div>
        {treasury.network === 'sim' && client && (
          <AmountForm
            label="Add test USDC (sim faucet)"
            action={faucetAction('sol')}
            initial="100"
            onSubmit={async (amount) => {
              const result = await client.faucet({ amount });
              await refresh();
              // The rail named where the other has a faucet of its own beside it (helper 186).
              return baseAccount === null
                ? `Added ${readableAmount(result.deposit.amount)} USDC; treasury now ${readableAmount(result.treasury.balance)} USDC`
                : `Added ${readableAmount(result.deposit.amount)} USDC on Solana; the treasury's Solana wallet now holds ${readableAmount(result.treasury.balance)} USDC`;
            }}
          />
        )}
        {baseAccount !== null && (
          <div className="rail-base" data-testid="treasury-base">
            <p className="muted">
              <OnRailBalance rail="base" balance={treasury.balances.base} />
              {testChain !== null && ` (test money, ${testChain})`}
            </p>
            {treasury.baseGas !== null && (
              <p className={treasury.baseGas.low ? 'warning' : 'muted'} data-testid="treasury-base-gas">
                Gas for moves on Base: {shortEther(treasury.baseGas.balance)} {gasWords(treasury.network)}, about{' '}
                {treasury.baseGas.moves.toLocaleString('en-US')} moves at today&apos;s fee
                {treasury.baseGas.low && ': send ETH to the Base deposit address before it runs out'}
              </p>
            )}
            <div className="deposit-address">
              <span className="label">Deposit address ({testChain === null ? 'USDC on Base' : `test USDC, ${testChain}`})</span>
              <code className="address" data-testid="deposit-address-base">
                {baseAccount}
              </code>
              <CopyButton text={baseAccount} label="Copy Base address" />
            </div>
            {treasury.network === 'sim' && client && (
              <AmountForm
                label="Test USDC on Base (sim faucet)"
                action={faucetAction('base')}
                initial="100"
                onSubmit={async (amount) => {
                  const result = await client.faucet({ amount, rail: 'base' });
                  await refresh();
                  return `Added ${readableAmount(result.deposit.amount)} USDC on Base; the treasury's Base account now holds ${readableAmount(result.treasury.balance)} USDC`;
                }}
              />
            )}
          </div>
        )}
      </div>
      {/* Each code named by its chain: USDC sent to the other chain's address would reach no wallet of this treasury's. */}
      <div className="qr-codes">
        <figure className="qr-code">
          <QrCode text={treasury.walletAddress} label={`QR code of the Solana deposit address ${treasury.walletAddress}`} />
          <figcaption>Deposit on Solana</figcaption>
        </figure>
        {baseAccount !== null && (
          <figure className="qr-code">
            <QrCode text={baseAccount} label={`QR code of the Base deposit address ${baseAccount}`} />
            <figcaption>Deposit on Base</figcaption>
          </figure>
        )}
      </div>
      <details className="deposits">
        <summary>Deposits ({deposits.length})</summary>
        {deposits.length === 0 ? (
          <p className="muted">No deposits yet. USDC sent to the address above appears here within a minute.</p>
        ) : (
          <table>
            <TableHead columns={['When', { label: 'Amount', num: true }, 'Rail', 'From']} />
            <tbody>
              {deposits.map((d) => (
                <tr key={d.id}>
                  <td>{dateTime(d.timestamp, timeZone)}</td>
                  <td className="num">
                    <Money value={d.amount} />
                  </td>
                  <RailCell rail={d.rail} />
                  <td>
                    <code className="address short" title={d.from}>
                      {d.source === 'faucet' ? 'sim faucet' : d.from}
                    </code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
    </section>
  );
}
