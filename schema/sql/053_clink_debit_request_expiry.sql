-- A parked debit request expires: past `expires_at` (unix ms) it is taken off the list and its requester gets
-- GFY 3 (src/clink/debit-expiry.ts). Stored, so a restart neither forgets nor extends it. Requests parked before
-- this column existed get the default lifetime (ten minutes) from when they were parked.
ALTER TABLE clink_debit_requests ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
UPDATE clink_debit_requests SET expires_at = created_at + 600000;
CREATE INDEX clink_debit_requests_expiry ON clink_debit_requests(expires_at);
