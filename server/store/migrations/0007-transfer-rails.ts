import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 7, the rail of every move of money (issue 49): `sol` for every row written before, `base`
 * for a move of USDC on Base. What is pending on one rail is read per rail (a wallet's balance on a
 * rail less what it promised away there), and each kind's view shows it. An agent's pending payments
 * on Base are kept beside its pending total (agent_spend_totals.pending_base) by two triggers of
 * their own, in the same write as the payment, as the total is: a payment's reservation reads them
 * without reading the payments.
 */
export function addTransferRails(db: SqliteDatabase): void {
  db.exec(`
    ALTER TABLE transfers ADD COLUMN rail TEXT NOT NULL DEFAULT 'sol' CHECK (rail IN ('sol', 'base'));
    DROP VIEW payments; DROP VIEW allocations; DROP VIEW deposits; DROP VIEW refunds;
    CREATE VIEW payments AS SELECT id, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status,
      tx_signature, (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire, last_valid_block_height, error_code,
      idempotency_key, request_hash, created_at, settled_at, refunded_at, refund_tx_signature, protocol, resource, x402_header,
      payer_signature, rail
      FROM transfers WHERE kind = 'payment';
    CREATE VIEW allocations AS SELECT id, owner, agent_id, amount, status, tx_signature,
      (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire, last_valid_block_height,
      error_code, created_at, settled_at, idempotency_key, request_hash,
      CASE kind WHEN 'return' THEN 'to_treasury' ELSE 'to_agent' END AS direction, rail
      FROM transfers WHERE kind IN ('allocation', 'return');
    CREATE VIEW deposits AS SELECT id, owner, tx_signature, amount, from_address,
      CASE kind WHEN 'faucet' THEN 'faucet' ELSE 'chain' END AS source, status,
      (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire, last_valid_block_height, error_code,
      idempotency_key, request_hash, created_at, settled_at, rail
      FROM transfers WHERE kind IN ('faucet', 'deposit');
    CREATE VIEW refunds AS SELECT id, owner, agent_id, payment_id, task_id, amount, status, tx_signature,
      (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS tx_wire,
      last_valid_block_height, error_code, created_at, settled_at, destination, rail
      FROM transfers WHERE kind = 'refund';
    ALTER TABLE agent_spend_totals ADD COLUMN pending_base INTEGER NOT NULL DEFAULT 0;
    CREATE TRIGGER payments_pending_base_insert AFTER INSERT ON transfers
      WHEN NEW.kind = 'payment' AND NEW.rail = 'base' AND NEW.status = 'pending' BEGIN
      INSERT INTO agent_spend_totals (owner, agent_id) VALUES (NEW.owner, NEW.agent_id) ON CONFLICT DO NOTHING;
      UPDATE agent_spend_totals SET pending_base = pending_base + NEW.amount WHERE owner = NEW.owner AND agent_id = NEW.agent_id;
    END;
    CREATE TRIGGER payments_pending_base_update AFTER UPDATE OF status ON transfers
      WHEN NEW.kind = 'payment' AND NEW.rail = 'base' AND (NEW.status = 'pending') != (OLD.status = 'pending') BEGIN
      UPDATE agent_spend_totals
        SET pending_base = pending_base + (CASE WHEN NEW.status = 'pending' THEN NEW.amount ELSE -OLD.amount END)
        WHERE owner = NEW.owner AND agent_id = NEW.agent_id;
    END;
  `);
}
