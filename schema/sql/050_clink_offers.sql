-- CLINK offers (kind 21001, docs/pub-protocol.md "Offers"; src/clink/): the offers users publish as noffer
-- strings, and the receipts owed to the requesters of offer invoices. Times are unix ms.

-- One row per offer. The default offer's id is its app user's identifier (created on first GetUserOffers); the
-- others get 34 random bytes as hex, as upstream. A deleted offer keeps its row (`deleted_at`) so a payer who
-- still holds its noffer hears "Expired Offer" (code 3) instead of "Invalid Offer".
CREATE TABLE clink_offers (
  offer_id             TEXT PRIMARY KEY,
  user_id              TEXT NOT NULL REFERENCES users(id),   -- the wallet credited (an app user's)
  label                TEXT NOT NULL,
  price_sats           INTEGER NOT NULL CHECK (price_sats >= 0),  -- 0: the payer picks the amount
  callback_url         TEXT NOT NULL DEFAULT '',
  payer_data           TEXT NOT NULL DEFAULT '[]',           -- JSON array of keys the payer must supply
  token                TEXT NOT NULL DEFAULT '',             -- Bearer token for the paid-callback
  reject_unauthorized  INTEGER NOT NULL DEFAULT 1,
  blind                INTEGER NOT NULL DEFAULT 0,
  management_pubkey    TEXT,                                 -- the key that created it over CLINK manage
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  deleted_at           INTEGER
);
CREATE INDEX clink_offers_user ON clink_offers(user_id, created_at);

-- Receipts owed: an offer invoice was issued to `requester` in answer to request `request_id`. Once the invoice
-- is paid, `{"res":"ok"}` goes to the requester (kind 21001, e = request_id) and `sent_at` is set; a receipt owed
-- while the relays are down is sent when they are up again.
CREATE TABLE clink_receipts (
  payment_hash  TEXT PRIMARY KEY,
  app_id        TEXT NOT NULL REFERENCES apps(id),   -- whose key answers
  requester     TEXT NOT NULL,                       -- hex pubkey
  request_id    TEXT NOT NULL,                       -- the kind-21001 request event id
  expires_at    INTEGER NOT NULL,                    -- the invoice's expiry: unpaid rows are dropped after it
  sent_at       INTEGER
);
CREATE INDEX clink_receipts_owed ON clink_receipts(sent_at) WHERE sent_at IS NULL;

-- GetUserOfferInvoices reads an offer's invoices.
CREATE INDEX invoices_offer ON invoices(user_id, offer_id) WHERE offer_id IS NOT NULL;
