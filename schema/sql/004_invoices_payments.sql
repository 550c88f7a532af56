-- Money moving in and out of wallets: invoices the wallets receive on, payments they make, transfers between them,
-- their on-chain addresses, products, bans and test-mode balance changes (src/wallet/). Amounts are INTEGER msat
-- unless the column says sats; times are unix ms. Every balance change these rows cause is a ledger transaction
-- (003_ledger.sql) written in the same SQLite transaction as the row; the `serial` columns give upstream's
-- operation ids (`INCOMING_INVOICE-<serial>`, `OUTGOING_INVOICE-<serial>`, …).

CREATE TABLE products (
  id             TEXT PRIMARY KEY,                      -- uuid
  owner_user_id  TEXT NOT NULL REFERENCES users(id),    -- credited when a product invoice is paid
  name           TEXT NOT NULL,
  price_sats     INTEGER NOT NULL CHECK (price_sats > 0),
  created_at     INTEGER NOT NULL
);
CREATE INDEX products_owner ON products(owner_user_id);

-- Invoices a wallet receives on. Paid at most once: the paid mark (`paid_at`) and the ledger's `invoice_credit`
-- (ref = payment_hash) are written together, by the node's settlement stream or by an internal payment.
CREATE TABLE invoices (
  serial            INTEGER PRIMARY KEY AUTOINCREMENT,
  payment_hash      TEXT NOT NULL UNIQUE,
  payment_request   TEXT NOT NULL UNIQUE,                -- lower case, as issued
  user_id           TEXT NOT NULL REFERENCES users(id),  -- the wallet credited
  app_id            TEXT REFERENCES apps(id),            -- the application it was issued through, if any
  amount_msat       INTEGER NOT NULL CHECK (amount_msat > 0),
  memo              TEXT NOT NULL DEFAULT '',
  description_hash  TEXT,
  created_at        INTEGER NOT NULL,
  expires_at        INTEGER NOT NULL,
  paid_at           INTEGER,
  paid_msat         INTEGER,                             -- what arrived (a payer may overpay over Lightning)
  paid_internally   INTEGER,                             -- 1: paid from a wallet of this service, 0: over Lightning
  settle_index      INTEGER,                             -- the node's settle index when paid over Lightning
  payer_user_id     TEXT REFERENCES users(id),           -- AddAppInvoice / AddAppUserInvoice payer, product buyer
  product_id        TEXT REFERENCES products(id),
  offer_id          TEXT,                                -- CLINK offer (AddAppUserInvoice offer_string)
  callback_url      TEXT NOT NULL DEFAULT '',            -- called when paid (src/callbacks/)
  callback_token    TEXT,                                -- Bearer token sent with the callback
  callback_reject_unauthorized INTEGER NOT NULL DEFAULT 1,
  payer_data        TEXT,                                -- JSON PayerData
  zap_request       TEXT,                                -- kind-9734 zap request, as given
  blind             INTEGER NOT NULL DEFAULT 0,
  extra             TEXT,                                -- JSON object ≤ 4 KiB for extensions
  CHECK ((paid_at IS NULL) = (paid_msat IS NULL)),
  CHECK ((paid_at IS NULL) = (paid_internally IS NULL))
);
CREATE INDEX invoices_user_paid ON invoices(user_id, paid_at);
CREATE INDEX invoices_extra_tag ON invoices(json_extract(extra, '$.tag')) WHERE extra IS NOT NULL;

-- Invoices a wallet pays. One row per payment hash, as upstream: a second attempt at the same invoice is refused.
-- pending → succeeded | failed, exactly once; `payment_debit` is posted with the row, then `payment_settle` (the
-- fee left after routing goes to the fee collector) or `payment_refund`, never both (ref = serial). An internal
-- payment is born succeeded: its debit pays the fee collector and the receiver's `invoice_credit` is posted with it.
CREATE TABLE payments (
  serial                 INTEGER PRIMARY KEY AUTOINCREMENT,
  payment_hash           TEXT NOT NULL UNIQUE,
  payment_request        TEXT NOT NULL,
  user_id                TEXT NOT NULL REFERENCES users(id),
  fee_collector_user_id  TEXT REFERENCES users(id),      -- the payer's app owner; NULL when no fee is due
  amount_msat            INTEGER NOT NULL CHECK (amount_msat > 0),
  service_fee_msat       INTEGER NOT NULL CHECK (service_fee_msat >= 0),
  max_routing_fee_msat   INTEGER NOT NULL CHECK (max_routing_fee_msat >= 0),
  routing_fee_msat       INTEGER,
  internal               INTEGER NOT NULL,
  status                 TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  preimage               TEXT,
  failure_reason         TEXT,
  created_at             INTEGER NOT NULL,
  resolved_at            INTEGER,
  CHECK ((status = 'pending') = (resolved_at IS NULL))
);
CREATE INDEX payments_user ON payments(user_id, serial);
CREATE INDEX payments_pending ON payments(status) WHERE status = 'pending';

-- One reusable on-chain address per (user, app, address type), issued by the node.
CREATE TABLE addresses (
  serial        INTEGER PRIMARY KEY AUTOINCREMENT,
  address       TEXT NOT NULL UNIQUE,
  user_id       TEXT NOT NULL REFERENCES users(id),
  app_id        TEXT NOT NULL REFERENCES apps(id),
  address_type  TEXT NOT NULL,
  callback_url  TEXT NOT NULL DEFAULT '',
  created_at    INTEGER NOT NULL,
  UNIQUE (user_id, app_id, address_type)
);

-- Wallet-to-wallet moves: app-user transfers (`user`) and payments to an address this service issued (`address`,
-- with a synthetic tx hash, as upstream). Completed when written; ledger kind `transfer`, ref = serial.
CREATE TABLE transfers (
  serial        INTEGER PRIMARY KEY AUTOINCREMENT,
  kind          TEXT NOT NULL CHECK (kind IN ('user', 'address')),
  from_user_id  TEXT NOT NULL REFERENCES users(id),
  to_user_id    TEXT NOT NULL REFERENCES users(id),
  fee_collector_user_id TEXT REFERENCES users(id),
  amount_msat   INTEGER NOT NULL CHECK (amount_msat > 0),
  fee_msat      INTEGER NOT NULL CHECK (fee_msat >= 0),
  address       TEXT REFERENCES addresses(address),
  tx_hash       TEXT UNIQUE,
  created_at    INTEGER NOT NULL,
  CHECK ((kind = 'address') = (address IS NOT NULL))
);
CREATE INDEX transfers_from ON transfers(from_user_id, serial);
CREATE INDEX transfers_to ON transfers(to_user_id, serial);

-- The operator banned a user: its balance went to `system:seized` (ledger kind `ban`, ref = serial).
CREATE TABLE bans (
  serial       INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id      TEXT NOT NULL REFERENCES users(id),
  seized_msat  INTEGER NOT NULL CHECK (seized_msat >= 0),
  banned_at    INTEGER NOT NULL
);

-- Test mode set a balance directly (ledger kind `mock_balance` against `system:mock`, ref = serial).
CREATE TABLE mock_balance_changes (
  serial      INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id     TEXT NOT NULL REFERENCES users(id),
  from_msat   INTEGER NOT NULL,
  to_msat     INTEGER NOT NULL,
  changed_at  INTEGER NOT NULL
);

-- Where the wallet's readers of outside streams stopped: `node_settle_index` is the last node settlement applied,
-- written in the same transaction as the credit, so catch-up at start resumes exactly there.
CREATE TABLE wallet_cursors (
  name   TEXT PRIMARY KEY,
  value  INTEGER NOT NULL
);
