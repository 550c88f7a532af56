-- The payroll extension (docs/payroll.md): contracts and the payout ledger.
-- Payroll owns these tables; no other room reads them.

CREATE TABLE payroll_contracts (
  id              TEXT PRIMARY KEY,
  name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  employee_wallet TEXT NOT NULL,
  source_wallet   TEXT NOT NULL CHECK (source_wallet <> employee_wallet),
  amount          TEXT NOT NULL,                       -- decimal text per period, in `currency`
  currency        TEXT NOT NULL,                       -- 'sat' or an ISO 4217 code
  frequency       TEXT NOT NULL CHECK (frequency IN ('daily', 'weekly', 'biweekly', 'monthly', 'quarterly', 'yearly')),
  start_date      TEXT NOT NULL,                       -- YYYY-MM-DD, the anchor of every payday
  total_periods   INTEGER NOT NULL CHECK (total_periods BETWEEN 1 AND 10000),
  periods_done    INTEGER NOT NULL DEFAULT 0 CHECK (periods_done BETWEEN 0 AND total_periods),
  pricing_mode    TEXT NOT NULL CHECK (pricing_mode IN ('payday', 'current', 'manual')),
  manual_rate     TEXT,                                -- fiat units per BTC, decimal text
  backfill        INTEGER NOT NULL CHECK (backfill IN (0, 1)),
  status          TEXT NOT NULL CHECK (status IN ('active', 'paused')),
  paused_reason   TEXT NOT NULL DEFAULT '',            -- '' unless payroll itself paused the contract
  created_at      INTEGER NOT NULL,                    -- unix ms
  updated_at      INTEGER NOT NULL
);
CREATE INDEX payroll_contracts_employee ON payroll_contracts (employee_wallet);
CREATE INDEX payroll_contracts_status ON payroll_contracts (status);

-- One row per attempt. Amounts, currency, wallets and the contract name are copied at the time of the attempt,
-- and there is no foreign key: rows outlive edits and deletion of their contract.
-- `paying` is the claim a payer writes before it creates the invoice; it is never shown to callers and becomes
-- `paid` or `failed`. `claim_expires_at` is past the invoice's expiry: after it the invoice can no longer be
-- paid, so a claim left behind by a crash can be closed as failed.
CREATE TABLE payroll_payouts (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,  -- insertion order, for "newest first"
  id               TEXT NOT NULL UNIQUE,
  contract_id      TEXT NOT NULL,
  contract_name    TEXT NOT NULL,
  period           INTEGER NOT NULL CHECK (period >= 0),
  payday           TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('paying', 'paid', 'skipped', 'failed')),
  amount           TEXT NOT NULL,
  currency         TEXT NOT NULL,
  employee_wallet  TEXT NOT NULL,
  source_wallet    TEXT NOT NULL,
  amount_msat      INTEGER CHECK (amount_msat IS NULL OR amount_msat > 0),
  rate             TEXT,
  rate_source      TEXT,
  detail           TEXT NOT NULL DEFAULT '',
  memo             TEXT,
  payment_hash     TEXT,
  claim_expires_at INTEGER,                            -- unix ms, for `paying` rows
  created_at       INTEGER NOT NULL                    -- unix ms
);
-- A period is paid at most once: a second payer (another request, another daemon on this database) cannot
-- even claim it while a claim or a paid row exists, so no second payment starts.
CREATE UNIQUE INDEX payroll_payouts_one_payment_per_period
  ON payroll_payouts (contract_id, period) WHERE status IN ('paying', 'paid');
CREATE UNIQUE INDEX payroll_payouts_payment_hash ON payroll_payouts (payment_hash) WHERE payment_hash IS NOT NULL;
CREATE INDEX payroll_payouts_contract ON payroll_payouts (contract_id, period, status);
CREATE INDEX payroll_payouts_employee ON payroll_payouts (employee_wallet);
