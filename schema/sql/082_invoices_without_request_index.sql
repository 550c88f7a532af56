-- One index fewer written per invoice (the cost of money moving must not grow with the books). The
-- UNIQUE on invoices.payment_request kept an index keyed by each invoice's text, ~300 bytes taken at a random
-- place: at 1M journal rows it was 33 MB, the largest index of the database, so once it outgrew the page cache
-- every new invoice cost a page read, a dirty page in the WAL and a page written again by the checkpoint. Nothing
-- needs it: payment_hash stays UNIQUE, a request names exactly one hash, and our own invoice is found by the hash
-- its text names, then the stored text compared (src/wallet/invoices/request-hash.ts). SQLite cannot drop a UNIQUE
-- constraint, so the table is rebuilt: every row and serial is kept, and the AUTOINCREMENT high-water mark too.
CREATE TEMP TABLE invoices_seq AS SELECT seq FROM sqlite_sequence WHERE name = 'invoices';

CREATE TABLE invoices_new (
  serial            INTEGER PRIMARY KEY AUTOINCREMENT,
  payment_hash      TEXT NOT NULL UNIQUE,
  payment_request   TEXT NOT NULL,                       -- lower case, as issued
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
INSERT INTO invoices_new SELECT serial, payment_hash, payment_request, user_id, app_id, amount_msat, memo,
  description_hash, created_at, expires_at, paid_at, paid_msat, paid_internally, settle_index, payer_user_id,
  product_id, offer_id, callback_url, callback_token, callback_reject_unauthorized, payer_data, zap_request, blind,
  extra FROM invoices;
DROP TABLE invoices;
ALTER TABLE invoices_new RENAME TO invoices;
UPDATE sqlite_sequence SET seq = MAX(seq, (SELECT seq FROM temp.invoices_seq)) WHERE name = 'invoices'
  AND EXISTS (SELECT 1 FROM temp.invoices_seq);
DROP TABLE temp.invoices_seq;

CREATE INDEX invoices_user_paid ON invoices(user_id, paid_at);
CREATE INDEX invoices_extra_tag ON invoices(json_extract(extra, '$.tag')) WHERE extra IS NOT NULL;
CREATE INDEX invoices_offer ON invoices(user_id, offer_id) WHERE offer_id IS NOT NULL;
