import { useState } from 'react';
import type { DashboardAgent } from '../api/types.js';
import { RenameForm } from '../components/RenameForm.js';
import { TreasuryTransferForms } from '../components/TreasuryTransferForms.js';
import { FundsMovesTable } from '../components/FundsMovesTable.js';
import { ArchiveDialog } from './ArchiveDialog.js';
import { ReplaceKeyDialog } from './ReplaceKeyDialog.js';

/** The agent page's Funds card: USDC to and from the treasury (and what moved so far), its name, a new API key, and archiving it. */
export function AgentFunds({ agent }: { agent: DashboardAgent }) {
  const [replacingKey, setReplacingKey] = useState(false);
  const [archiving, setArchiving] = useState(false);
  return (
    <section className="card" aria-labelledby="funds-title">
      <h3 id="funds-title">Funds</h3>
      <TreasuryTransferForms agent={agent} />
      <FundsMovesTable agentId={agent.agentId} />
      <RenameForm agentId={agent.agentId} current={agent.displayName} />
      <div className="amount-form">
        <span className="label-like">API key</span>
        <p className="hint">Shown once when the agent was made. Lost or leaked? Issue a new one; the old one stops working.</p>
        <div>
          <button type="button" className="button" onClick={() => setReplacingKey(true)}>
            Issue a new API key…
          </button>
        </div>
      </div>
      <ReplaceKeyDialog agentId={agent.agentId} name={agent.displayName} open={replacingKey} onClose={() => setReplacingKey(false)} />
      <div className="amount-form">
        <span className="label-like">Done with this agent?</span>
        <p className="hint">
          Archiving stops it for good and revokes its key; its history stays. Its USDC goes back to the treasury first.
        </p>
        <div>
          <button type="button" className="button danger" onClick={() => setArchiving(true)}>
            Archive…
          </button>
        </div>
      </div>
      <ArchiveDialog
        agentId={agent.agentId}
        name={agent.displayName}
        balances={agent.balances}
        open={archiving}
        onClose={() => setArchiving(false)}
      />
    </section>
  );
}
