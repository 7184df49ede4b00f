import type { SqliteDatabase } from '../sqlite-driver.js';

/**
 * Schema 7, the rail of every move of money (issue 49): `sol` for every row written before, `base`
 * for a move of USDC on Base. What is pending on one rail is read per rail (a wallet's balance on a
 * rail less what it promised away there), and each kind's view shows it.
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
  `);
}
