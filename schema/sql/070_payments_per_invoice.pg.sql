-- PostgreSQL twin of 070_payments_per_invoice.sql (the SQLite file rebuilds the table, which PostgreSQL does not
-- need): the same end state. UNIQUE(payment_hash) goes; at most one live (pending or succeeded) attempt per hash
-- stays, kept by a partial unique index; serials and the identity's high-water mark are untouched.
ALTER TABLE payments DROP CONSTRAINT payments_payment_hash_key;
CREATE UNIQUE INDEX payments_live_hash ON payments(payment_hash) WHERE status <> 'failed';
CREATE INDEX payments_hash ON payments(payment_hash, serial);
CREATE INDEX payments_request ON payments(payment_request, serial);
