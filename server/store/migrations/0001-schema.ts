/**
 * The ledger's schema at its first release (schema 1): every table, index and trigger of `coffer.db`
 * then, by aggregate. Money columns are INTEGER micro-USDC; times INTEGER epoch milliseconds; a
 * `last_valid_block_height` is TEXT (a u64). Tables are STRICT. A change after a release is a new
 * migration in migrations.ts, never an edit here. The schema as it stands after every migration, the
 * one to read: server/store/current-schema.sql.
 */
export const SCHEMA = `
  -- Settings of the data dir (its network, backup state, a treasury's next wallet index, ...).
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;

  -- ── Owners, keys and agents ─────────────────────────────────────────────────────────────────

  CREATE TABLE owners (
    address TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL
  ) STRICT;

  -- Only the SHA-256 of an API key is stored; the key itself is shown once.
  CREATE TABLE api_keys (
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('owner', 'agent')),
    owner TEXT NOT NULL REFERENCES owners(address),
    agent_id TEXT,
    created_at INTEGER NOT NULL
  ) STRICT;

  -- An archived agent is stopped for good, its keys are gone, its history stays; its id stays taken.
  CREATE TABLE agents (
    owner TEXT NOT NULL REFERENCES owners(address),
    agent_id TEXT NOT NULL,
    wallet_address TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    -- Why it is suspended when no person stopped it (its breaker tripped); NULL otherwise.
    status_reason TEXT,
    -- When its status last changed (epoch ms); NULL: never since it was made.
    status_changed_at INTEGER,
    created_at INTEGER NOT NULL,
    archived_at INTEGER,
    PRIMARY KEY (owner, agent_id)
  ) STRICT;

  CREATE TABLE policies (
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    daily_budget INTEGER NOT NULL CHECK (daily_budget > 0),
    max_per_payment INTEGER NOT NULL CHECK (max_per_payment > 0),
    cooldown_seconds INTEGER NOT NULL CHECK (cooldown_seconds >= 0),
    allowed_services TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    -- The budgets beyond the daily one, as JSON: [{amount (micro-USDC, text), window, scope}]
    -- (server/core/policy/budgets.ts). What each has spent is kept below (budget_scopes).
    budgets TEXT NOT NULL DEFAULT '[]',
    -- When the policy ends (epoch ms; server/core/policy/expiry.ts); NULL: never.
    expires_at INTEGER,
    -- The shares of a budget (percent) at which the owner is told, as JSON (server/core/policy/budget-warnings.ts).
    warn_at TEXT NOT NULL DEFAULT '[80,95]',
    -- When the agent stops itself, as JSON {refusals, spending} (server/core/policy/breaker.ts); NULL: never.
    breaker TEXT,
    -- Payments above this amount (micro-USDC) wait for the owner's yes (server/core/policy/holds.ts); NULL: none.
    ask_above INTEGER CHECK (ask_above >= 0),
    -- 1: the first payment to a recipient the agent never paid waits for the owner's yes.
    ask_new_recipient INTEGER NOT NULL DEFAULT 0 CHECK (ask_new_recipient IN (0, 1)),
    PRIMARY KEY (owner, agent_id),
    FOREIGN KEY (owner, agent_id) REFERENCES agents(owner, agent_id)
  ) STRICT;

  -- ── Moves of money ──────────────────────────────────────────────────────────────────────────
  -- Every move of USDC is one row of one table, whatever its kind, and goes through one lifecycle
  -- (server/core/transfers/lifecycle.ts): signed first, then written pending with its signed
  -- transaction (tx_signature, tx_wire, last_valid_block_height) in the one write that checks and
  -- reserves it, then sent, then settled (confirmed or failed, with error_code); a row left pending
  -- is settled against the chain at the next start (reconcile.ts). A deposit found on chain is
  -- written confirmed. Kinds:
  --   payment     an agent pays a service (protocol 'coffer': Coffer sends it; 'x402': signed by the
  --               agent, sent by the seller's facilitator, so its tx_signature is known only once it
  --               lands, and it is found by the agent's own signature in it, payer_signature). memo is
  --               the paid API's nonce (or the payment's id); resource the URL paid for (x402);
  --               x402_header the header (name and value, JSON) the agent retries with.
  --   allocation  the treasury funds an agent;  return  an agent's USDC goes back to the treasury.
  --   faucet      test USDC minted into the treasury (sim);  deposit  USDC found coming in (from_address).
  --   refund      a failed image generation's payment given back (payment_id, task_id): to the agent's
  --               wallet, or kept in the treasury when the agent was archived (destination). At most one
  --               under way or done per payment; once confirmed, its payment is refunded_at.
  -- The newest row under an (owner, agent, Idempotency-Key) of a kind answers a retry of its request.
  CREATE TABLE transfers (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('payment', 'allocation', 'return', 'faucet', 'deposit', 'refund')),
    owner TEXT NOT NULL REFERENCES owners(address),
    agent_id TEXT CHECK ((agent_id IS NULL) = (kind IN ('faucet', 'deposit'))),
    amount INTEGER NOT NULL CHECK (amount > 0),
    -- 'held': a payment waiting for the owner's yes (no transaction yet; counted by the budgets).
    status TEXT NOT NULL CHECK (status IN ('held', 'pending', 'confirmed', 'failed') AND (status != 'held' OR kind = 'payment')),
    tx_signature TEXT UNIQUE,
    tx_wire TEXT,
    last_valid_block_height TEXT,
    error_code TEXT,
    idempotency_key TEXT,
    request_hash TEXT,
    created_at INTEGER NOT NULL,
    settled_at INTEGER,
    -- payments
    service_id TEXT CHECK ((service_id IS NOT NULL) = (kind = 'payment')),
    service_name TEXT,
    recipient TEXT,
    memo TEXT,
    description TEXT,
    protocol TEXT CHECK (protocol IN ('coffer', 'x402')),
    resource TEXT,
    x402_header TEXT,
    payer_signature TEXT,
    refunded_at INTEGER,
    refund_tx_signature TEXT,
    -- deposits
    from_address TEXT,
    -- refunds
    payment_id TEXT REFERENCES transfers(id) CHECK ((payment_id IS NOT NULL) = (kind = 'refund')),
    task_id TEXT REFERENCES generation_tasks(id),
    destination TEXT CHECK (destination IN ('agent', 'treasury')),
    FOREIGN KEY (owner, agent_id) REFERENCES agents(owner, agent_id)
  ) STRICT;
  -- Partial indexes by kind: each move of money enters only the indexes of its own kind, so a
  -- payment costs the writes it did when payments had a table of their own.
  -- What reconciliation settles, and what a wallet has promised away (a few rows: those in flight).
  CREATE INDEX transfers_pending ON transfers (status) WHERE status = 'pending';
  CREATE INDEX transfers_by_idempotency_key ON transfers (owner, agent_id, idempotency_key, created_at)
    WHERE idempotency_key IS NOT NULL;
  CREATE INDEX payments_by_agent ON transfers (owner, agent_id, created_at) WHERE kind = 'payment';
  CREATE INDEX payments_by_owner ON transfers (owner, created_at) WHERE kind = 'payment';
  -- A nonce paid to a recipient, and whether an agent ever paid a recipient (a new one may be asked about).
  CREATE INDEX payments_by_recipient ON transfers (owner, agent_id, recipient, memo) WHERE kind = 'payment';
  CREATE INDEX payments_by_payer_signature ON transfers (payer_signature) WHERE payer_signature IS NOT NULL;
  CREATE INDEX allocations_by_agent ON transfers (owner, agent_id, created_at) WHERE kind IN ('allocation', 'return');
  CREATE INDEX deposits_by_owner ON transfers (owner, created_at) WHERE kind IN ('faucet', 'deposit');
  CREATE UNIQUE INDEX refunds_one_per_payment ON transfers (payment_id) WHERE kind = 'refund' AND status != 'failed';
  CREATE INDEX refunds_by_payment ON transfers (payment_id, created_at) WHERE kind = 'refund';

  -- Each kind read as a table of its own (the store's reads, and anyone opening coffer.db).
  CREATE VIEW payments AS SELECT id, owner, agent_id, service_id, service_name, recipient, amount, memo, description, status,
    tx_signature, tx_wire, last_valid_block_height, error_code, idempotency_key, request_hash, created_at, settled_at,
    refunded_at, refund_tx_signature, protocol, resource, x402_header, payer_signature
    FROM transfers WHERE kind = 'payment';
  CREATE VIEW allocations AS SELECT id, owner, agent_id, amount, status, tx_signature, tx_wire, last_valid_block_height,
    error_code, created_at, settled_at, idempotency_key, request_hash,
    CASE kind WHEN 'return' THEN 'to_treasury' ELSE 'to_agent' END AS direction
    FROM transfers WHERE kind IN ('allocation', 'return');
  CREATE VIEW deposits AS SELECT id, owner, tx_signature, amount, from_address,
    CASE kind WHEN 'faucet' THEN 'faucet' ELSE 'chain' END AS source, status, tx_wire, last_valid_block_height, error_code,
    idempotency_key, request_hash, created_at, settled_at
    FROM transfers WHERE kind IN ('faucet', 'deposit');
  CREATE VIEW refunds AS SELECT id, owner, agent_id, payment_id, task_id, amount, status, tx_signature, tx_wire,
    last_valid_block_height, error_code, created_at, settled_at, destination
    FROM transfers WHERE kind = 'refund';

  -- ── What an agent spent: kept by the payments' own writes ───────────────────────────────────
  -- The policy reads these, never an agent's history (server/core/payments/pay.ts, policyRefusal): per
  -- agent, what is pending, the lifetime spend and the last payment; and the amount counted against
  -- the rolling 24 h budget per minute and per hour (a payment counts while held for the owner, pending
  -- or confirmed, and not refunded; "pending" and the last payment leave a held one out). The two
  -- triggers below keep them in the same write as every insert, settlement and refund of a payment.
  CREATE TABLE agent_spend_totals (
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    pending INTEGER NOT NULL DEFAULT 0,
    lifetime_spent INTEGER NOT NULL DEFAULT 0,
    lifetime_payments INTEGER NOT NULL DEFAULT 0,
    last_payment_at INTEGER,
    PRIMARY KEY (owner, agent_id)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE agent_spend_buckets (
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    span INTEGER NOT NULL CHECK (span IN (60000, 3600000)),
    start INTEGER NOT NULL,
    amount INTEGER NOT NULL,
    PRIMARY KEY (owner, agent_id, span, start)
  ) STRICT, WITHOUT ROWID;
  CREATE TRIGGER payments_spend_insert AFTER INSERT ON transfers WHEN NEW.kind = 'payment' BEGIN
    INSERT INTO agent_spend_totals (owner, agent_id) VALUES (NEW.owner, NEW.agent_id) ON CONFLICT DO NOTHING;
    UPDATE agent_spend_totals SET
      pending = pending + (CASE WHEN NEW.status = 'pending' THEN NEW.amount ELSE 0 END),
      lifetime_spent = lifetime_spent + (CASE WHEN NEW.status = 'confirmed' AND NEW.refunded_at IS NULL THEN NEW.amount ELSE 0 END),
      lifetime_payments = lifetime_payments + (CASE WHEN NEW.status = 'confirmed' AND NEW.refunded_at IS NULL THEN 1 ELSE 0 END),
      last_payment_at = CASE WHEN NEW.status IN ('pending', 'confirmed') AND (last_payment_at IS NULL OR NEW.created_at > last_payment_at)
        THEN NEW.created_at ELSE last_payment_at END
    WHERE owner = NEW.owner AND agent_id = NEW.agent_id;
    INSERT INTO agent_spend_buckets (owner, agent_id, span, start, amount)
      SELECT NEW.owner, NEW.agent_id, span, NEW.created_at / span, NEW.amount
      FROM (SELECT 60000 AS span UNION ALL SELECT 3600000)
      WHERE NEW.status IN ('held', 'pending', 'confirmed') AND NEW.refunded_at IS NULL
      ON CONFLICT DO UPDATE SET amount = amount + excluded.amount;
    -- Buckets two days older than the newest payment are past any 24 h window (a clock set back a
    -- day still finds its window whole) and are dropped; lifetime figures live in the totals.
    DELETE FROM agent_spend_buckets WHERE owner = NEW.owner AND agent_id = NEW.agent_id AND span = 60000 AND start < NEW.created_at / 60000 - 2880;
    DELETE FROM agent_spend_buckets WHERE owner = NEW.owner AND agent_id = NEW.agent_id AND span = 3600000 AND start < NEW.created_at / 3600000 - 48;
  END;
  CREATE TRIGGER payments_spend_update AFTER UPDATE OF status, refunded_at ON transfers WHEN NEW.kind = 'payment' BEGIN
    UPDATE agent_spend_totals SET
      pending = pending + (CASE WHEN NEW.status = 'pending' THEN NEW.amount ELSE 0 END) - (CASE WHEN OLD.status = 'pending' THEN OLD.amount ELSE 0 END),
      lifetime_spent = lifetime_spent
        + (CASE WHEN NEW.status = 'confirmed' AND NEW.refunded_at IS NULL THEN NEW.amount ELSE 0 END)
        - (CASE WHEN OLD.status = 'confirmed' AND OLD.refunded_at IS NULL THEN OLD.amount ELSE 0 END),
      lifetime_payments = lifetime_payments
        + (CASE WHEN NEW.status = 'confirmed' AND NEW.refunded_at IS NULL THEN 1 ELSE 0 END)
        - (CASE WHEN OLD.status = 'confirmed' AND OLD.refunded_at IS NULL THEN 1 ELSE 0 END),
      last_payment_at = CASE
        WHEN NEW.status IN ('pending', 'confirmed') THEN
          CASE WHEN last_payment_at IS NULL OR NEW.created_at > last_payment_at THEN NEW.created_at ELSE last_payment_at END
        WHEN OLD.status IN ('pending', 'confirmed') AND OLD.created_at >= last_payment_at THEN
          (SELECT MAX(created_at) FROM transfers WHERE kind = 'payment' AND owner = NEW.owner AND agent_id = NEW.agent_id AND status IN ('pending', 'confirmed'))
        ELSE last_payment_at END
    WHERE owner = NEW.owner AND agent_id = NEW.agent_id;
    INSERT INTO agent_spend_buckets (owner, agent_id, span, start, amount)
      SELECT NEW.owner, NEW.agent_id, span, NEW.created_at / span, delta
      FROM (SELECT 60000 AS span UNION ALL SELECT 3600000),
        (SELECT (CASE WHEN NEW.status IN ('held', 'pending', 'confirmed') AND NEW.refunded_at IS NULL THEN NEW.amount ELSE 0 END)
          - (CASE WHEN OLD.status IN ('held', 'pending', 'confirmed') AND OLD.refunded_at IS NULL THEN OLD.amount ELSE 0 END) AS delta)
      WHERE delta != 0
      ON CONFLICT DO UPDATE SET amount = amount + excluded.amount;
  END;

  -- What the payments in a budget's scope spent, for the scopes an agent's budgets name: '' (every
  -- payment), 'service:<id>' or 'to:<address>' (budget_scopes, kept in step with the policies by
  -- the store, and filled from the payments already made when a budget first names a scope). Per
  -- scope, the amount and the number of payments counted (held, pending or confirmed, not refunded) per UTC minute (for 33 days), hour
  -- and day, and in all; a window's spending is read from at most 59 minutes, 23 hours and 33 days
  -- of them plus the payments of one minute (server/store/sqlite/budget-spend.ts), never from the
  -- history. Kept in the same write as every insert, settlement and refund of a payment by
  -- the two triggers below, which do nothing for an agent without budgets.
  CREATE TABLE budget_scopes (
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    PRIMARY KEY (owner, agent_id, scope)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE budget_buckets (
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    span INTEGER NOT NULL CHECK (span IN (60000, 3600000, 86400000)),
    start INTEGER NOT NULL,
    amount INTEGER NOT NULL,
    payments INTEGER NOT NULL,
    PRIMARY KEY (owner, agent_id, scope, span, start)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE budget_totals (
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    amount INTEGER NOT NULL,
    payments INTEGER NOT NULL,
    PRIMARY KEY (owner, agent_id, scope)
  ) STRICT, WITHOUT ROWID;
  CREATE TRIGGER budget_spend_insert AFTER INSERT ON transfers
    WHEN NEW.kind = 'payment' AND NEW.status IN ('held', 'pending', 'confirmed') AND NEW.refunded_at IS NULL
      AND EXISTS (SELECT 1 FROM budget_scopes WHERE owner = NEW.owner AND agent_id = NEW.agent_id)
  BEGIN
    INSERT INTO budget_buckets (owner, agent_id, scope, span, start, amount, payments)
      SELECT NEW.owner, NEW.agent_id, b.scope, spans.span, NEW.created_at / spans.span, NEW.amount, 1
      FROM budget_scopes b, (SELECT 60000 AS span UNION ALL SELECT 3600000 UNION ALL SELECT 86400000) AS spans
      WHERE b.owner = NEW.owner AND b.agent_id = NEW.agent_id AND b.scope IN ('', 'service:' || NEW.service_id, 'to:' || NEW.recipient)
      ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, payments = payments + 1;
    INSERT INTO budget_totals (owner, agent_id, scope, amount, payments)
      SELECT NEW.owner, NEW.agent_id, b.scope, NEW.amount, 1 FROM budget_scopes b
      WHERE b.owner = NEW.owner AND b.agent_id = NEW.agent_id AND b.scope IN ('', 'service:' || NEW.service_id, 'to:' || NEW.recipient)
      ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, payments = payments + 1;
    -- Minutes older than any window (a clock set back a day still finds its window whole) are
    -- dropped; hours and days are few (a year of them is some 9,000 rows a scope) and are kept.
    DELETE FROM budget_buckets WHERE owner = NEW.owner AND agent_id = NEW.agent_id AND scope IN ('', 'service:' || NEW.service_id, 'to:' || NEW.recipient)
      AND span = 60000 AND start < NEW.created_at / 60000 - 47520;
  END;
  CREATE TRIGGER budget_spend_update AFTER UPDATE OF status, refunded_at ON transfers
    WHEN NEW.kind = 'payment' AND EXISTS (SELECT 1 FROM budget_scopes WHERE owner = NEW.owner AND agent_id = NEW.agent_id)
  BEGIN
    -- A payment starts or stops counting (its amount is above zero, so one counts when the other does).
    INSERT INTO budget_buckets (owner, agent_id, scope, span, start, amount, payments)
      SELECT NEW.owner, NEW.agent_id, b.scope, spans.span, NEW.created_at / spans.span, sign * NEW.amount, sign
      FROM budget_scopes b, (SELECT 60000 AS span UNION ALL SELECT 3600000 UNION ALL SELECT 86400000) AS spans,
        (SELECT (NEW.status IN ('held', 'pending', 'confirmed') AND NEW.refunded_at IS NULL)
          - (OLD.status IN ('held', 'pending', 'confirmed') AND OLD.refunded_at IS NULL) AS sign)
      WHERE sign != 0 AND b.owner = NEW.owner AND b.agent_id = NEW.agent_id
        AND b.scope IN ('', 'service:' || NEW.service_id, 'to:' || NEW.recipient)
      ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, payments = payments + excluded.payments;
    INSERT INTO budget_totals (owner, agent_id, scope, amount, payments)
      SELECT NEW.owner, NEW.agent_id, b.scope, sign * NEW.amount, sign FROM budget_scopes b,
        (SELECT (NEW.status IN ('held', 'pending', 'confirmed') AND NEW.refunded_at IS NULL)
          - (OLD.status IN ('held', 'pending', 'confirmed') AND OLD.refunded_at IS NULL) AS sign)
      WHERE sign != 0 AND b.owner = NEW.owner AND b.agent_id = NEW.agent_id
        AND b.scope IN ('', 'service:' || NEW.service_id, 'to:' || NEW.recipient)
      ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, payments = payments + excluded.payments;
  END;

  -- What the owner was told about an agent and when (a budget passing a share, a policy's coming
  -- end), so each is told once per its period (server/core/policy/budget-warnings.ts, expiry-notices.ts).
  CREATE TABLE notices (
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    told_at INTEGER NOT NULL,
    PRIMARY KEY (owner, agent_id, subject)
  ) STRICT, WITHOUT ROWID;

  -- Payments the policy refused: a signal for the owner, kept as the latest 500 per owner.
  CREATE TABLE refusals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    service TEXT NOT NULL,
    amount TEXT NOT NULL,
    code TEXT NOT NULL,
    message TEXT NOT NULL,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX refusals_by_owner ON refusals (owner, id);

  -- Every change of money or policy, by whom.
  CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    owner TEXT NOT NULL,
    agent_id TEXT,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
  ) STRICT;
  CREATE INDEX audit_by_owner ON audit_log (owner, at);

  -- ── Image generation ────────────────────────────────────────────────────────────────────────
  -- Paid when accepted, then worked asynchronously by the image provider.
  CREATE TABLE generation_tasks (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    model_id TEXT NOT NULL,
    resolution TEXT NOT NULL,
    prompt TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'generating', 'success', 'failed')),
    estimated_cost INTEGER NOT NULL,
    cost INTEGER,
    payment_id TEXT NOT NULL UNIQUE REFERENCES transfers(id),
    result_url TEXT,
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    FOREIGN KEY (owner, agent_id) REFERENCES agents(owner, agent_id)
  ) STRICT;
  CREATE INDEX generation_tasks_open ON generation_tasks (status) WHERE status IN ('queued', 'generating');
  CREATE INDEX generation_tasks_by_agent ON generation_tasks (owner, agent_id, created_at);

  -- ── Asking the owner ────────────────────────────────────────────────────────────────────────

  -- What an agent asked for that only the owner may grant; carried out once when approved. A stopped
  -- agent's waiting requests are withdrawn (all but asking to be resumed).
  CREATE TABLE approvals (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('policy', 'allocate', 'resume', 'deploy', 'payment')),
    target_agent_id TEXT NOT NULL,
    request TEXT NOT NULL,
    -- What it was asked against (a policy change: the policy then), as JSON; NULL when nothing.
    before TEXT,
    -- A payment's approval: its held payment (transfers, status 'held' while this waits). Checked at
    -- commit: paying it takes the held row out and writes it again, paid, under the same id.
    payment_id TEXT REFERENCES transfers(id) DEFERRABLE INITIALLY DEFERRED CHECK ((payment_id IS NOT NULL) = (kind = 'payment')),
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'failed', 'withdrawn')),
    result TEXT,
    error TEXT,
    error_code TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    decided_at INTEGER,
    delivered_at INTEGER
  ) STRICT;
  CREATE INDEX approvals_by_owner ON approvals (owner, status, created_at);
  CREATE INDEX approvals_by_payment ON approvals (payment_id) WHERE payment_id IS NOT NULL;

  -- Link sessions: a terminal asks, the signed-in owner completes. Only the token's hash is kept; the
  -- new agent's key is minted when the poller collects it, so no secret is ever stored. A request the
  -- owner opened (opened_at) is the owner's to decide: it never gives way to newer ones.
  CREATE TABLE link_sessions (
    token_hash TEXT PRIMARY KEY,
    code TEXT NOT NULL,
    client TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'delivered')),
    owner TEXT,
    agent_id TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    last_polled_at INTEGER,
    completed_at INTEGER,
    opened_at INTEGER
  ) STRICT;
  CREATE INDEX link_sessions_waiting ON link_sessions (status, expires_at, created_at);

  -- Dashboard sign-in outlives a restart of the server: login links and sessions, by the SHA-256 of
  -- their token (the tokens themselves are never stored). A login link a dashboard session mints
  -- signs in as of that session's sign-in (signed_in_at; null: the owner key minted it, a new
  -- sign-in), so a session cannot make itself fresh again.
  CREATE TABLE dashboard_login_tokens (
    token_hash TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    signed_in_at INTEGER
  ) STRICT;
  CREATE TABLE dashboard_sessions (
    token_hash TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    signed_in_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;

  -- ── The registry of paid services and models ────────────────────────────────────────────────
  CREATE TABLE services (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    category TEXT NOT NULL,
    pricing TEXT NOT NULL,
    price_per_call TEXT,
    endpoint TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('svc-native', 'model-registry', 'x402-marketplace')),
    pay_to TEXT NOT NULL,
    network TEXT NOT NULL
  ) STRICT;
  CREATE INDEX services_by_source_name ON services (source, name);
  CREATE TABLE models (
    id TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    provider TEXT NOT NULL,
    description TEXT NOT NULL,
    pricing TEXT NOT NULL,
    enabled INTEGER NOT NULL
  ) STRICT;
  -- The full-text index, kept in step with the services by triggers (no rebuild at start). Prefix
  -- indexes up to 8 characters: a query's words are prefixes ("weath" finds "weather"), and a prefix
  -- longer than the longest indexed one is matched by merging every term it starts (at 100k
  -- services, 3 ms of a search's 4). Costs about half again the index's size.
  CREATE VIRTUAL TABLE services_fts USING fts5 (
    name, description, category, id, content='services', tokenize='porter unicode61', prefix='1 2 3 4 5 6 7 8'
  );
  CREATE TRIGGER services_fts_insert AFTER INSERT ON services BEGIN
    INSERT INTO services_fts (rowid, name, description, category, id) VALUES (NEW.rowid, NEW.name, NEW.description, NEW.category, NEW.id);
  END;
  CREATE TRIGGER services_fts_delete AFTER DELETE ON services BEGIN
    INSERT INTO services_fts (services_fts, rowid, name, description, category, id) VALUES ('delete', OLD.rowid, OLD.name, OLD.description, OLD.category, OLD.id);
  END;
  CREATE TRIGGER services_fts_update AFTER UPDATE ON services BEGIN
    INSERT INTO services_fts (services_fts, rowid, name, description, category, id) VALUES ('delete', OLD.rowid, OLD.name, OLD.description, OLD.category, OLD.id);
    INSERT INTO services_fts (rowid, name, description, category, id) VALUES (NEW.rowid, NEW.name, NEW.description, NEW.category, NEW.id);
  END;

  -- ── The embedded (sim) chain, in the same file so it rolls back with the ledger ─────────────

  -- Its accounts, so balances survive a restart.
  CREATE TABLE sim_accounts (
    address TEXT PRIMARY KEY,
    lamports TEXT NOT NULL,
    owner TEXT NOT NULL,
    data BLOB NOT NULL,
    executable INTEGER NOT NULL
  ) STRICT;
  -- Every transaction it executed, as a node keeps them, so it answers JSON-RPC as a cluster does:
  -- their order (seq), metadata (error, fee, logs, token balances before and after, as JSON), and
  -- which addresses each touched (getSignaturesForAddress).
  CREATE TABLE sim_transactions (
    signature TEXT PRIMARY KEY,
    wire TEXT NOT NULL,
    slot INTEGER NOT NULL,
    block_time INTEGER NOT NULL,
    error TEXT,
    seq INTEGER NOT NULL,
    meta TEXT NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX sim_transactions_by_seq ON sim_transactions (seq);
  CREATE TABLE sim_address_signatures (
    address TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (address, seq)
  ) STRICT, WITHOUT ROWID;
`;
