-- One index fewer written per payment (the cost of a payment must not grow with the journal). Every
-- payment went into two indexes keyed by its payment hash, each taking it at a random place: payments_live_hash
-- (one live attempt per hash) and payments_hash (every attempt). At 1M journal rows they were 16.7 and 17.6 MB, so
-- once they outgrow the page cache each costs a page read and a dirty page per payment. A live attempt is always
-- the latest at its hash (none can be inserted while it lives, and a succeeded one never fails), so the live index
-- already finds it; only failed attempts, the history of retries, need an index of their own. The same text runs
-- on both engines.
DROP INDEX payments_hash;
CREATE INDEX payments_failed_hash ON payments(payment_hash, serial) WHERE status = 'failed';
