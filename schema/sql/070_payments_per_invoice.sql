-- Repeats are decided per invoice, not per payment hash: a failed attempt no longer blocks the hash for
-- everyone, so a payment may be retried after it failed, and an invoice that merely copies a hash inherits nothing.
-- The node can still hold only one payment per hash (LND's rule), so at most one attempt per hash may be pending or
-- succeeded: failed attempts stay as history beside it. The table is rebuilt to drop UNIQUE(payment_hash);
-- serials (the ledger's refs and upstream's operation ids) are kept, and so is the AUTOINCREMENT high-water mark.
CREATE TEMP TABLE payments_seq AS SELECT seq FROM sqlite_sequence WHERE name = 'payments';

CREATE TABLE payments_new (
  serial                 INTEGER PRIMARY KEY AUTOINCREMENT,
  payment_hash           TEXT NOT NULL,
  payment_request        TEXT NOT NULL,                  -- lower case: the invoice this attempt paid
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
INSERT INTO payments_new SELECT serial, payment_hash, payment_request, user_id, fee_collector_user_id, amount_msat,
  service_fee_msat, max_routing_fee_msat, routing_fee_msat, internal, status, preimage, failure_reason, created_at,
  resolved_at FROM payments;
DROP TABLE payments;
ALTER TABLE payments_new RENAME TO payments;
UPDATE sqlite_sequence SET seq = MAX(seq, (SELECT seq FROM temp.payments_seq)) WHERE name = 'payments'
  AND EXISTS (SELECT 1 FROM temp.payments_seq);
DROP TABLE temp.payments_seq;

CREATE INDEX payments_user ON payments(user_id, serial);
CREATE INDEX payments_pending ON payments(status) WHERE status = 'pending';
-- The node's rule, kept by the database too: one live (pending or succeeded) attempt per payment hash.
CREATE UNIQUE INDEX payments_live_hash ON payments(payment_hash) WHERE status <> 'failed';
-- All attempts at one hash (history, GetPaymentState) and at one invoice.
CREATE INDEX payments_hash ON payments(payment_hash, serial);
CREATE INDEX payments_request ON payments(payment_request, serial);
