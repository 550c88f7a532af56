-- The LNURL room (docs/pub-protocol.md "LNURL and zaps"): pay keys, single-use withdraw keys, channel keys, claimed
-- Lightning address names, and the zap receipts already published (so a redelivered payment never zaps twice).

-- One persistent pay key per (wallet, app, identifier). `identifier` is '' for the plain lnurl link, else the
-- Lightning address name the key answers for: the LUD-06 metadata (and so the invoice description hash) depends
-- on it, and the callback carries only k1.
CREATE TABLE lnurl_pay_keys (
  k1          TEXT PRIMARY KEY,                  -- 62 hex (31 random bytes, as upstream)
  user_id     TEXT NOT NULL REFERENCES users(id),
  app_id      TEXT NOT NULL REFERENCES apps(id),
  identifier  TEXT NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL,
  UNIQUE (user_id, app_id, identifier)
);

-- Single-use withdraw keys bound to a wallet and a maximum. `used_at` is set in the same transaction that
-- records the attempt (`payment_request`, `outcome`), so of two concurrent callbacks exactly one claims the key.
CREATE TABLE lnurl_withdraw_keys (
  k1               TEXT PRIMARY KEY,
  user_id          TEXT NOT NULL REFERENCES users(id),
  max_msat         INTEGER NOT NULL CHECK (max_msat >= 0),
  created_at       INTEGER NOT NULL,
  used_at          INTEGER,
  payment_request  TEXT,
  outcome          TEXT CHECK (outcome IN ('pending', 'paid', 'in_flight', 'refused'))
);
CREATE INDEX lnurl_withdraw_keys_user ON lnurl_withdraw_keys(user_id);

-- Single-use LNURL-channel keys (LUD-02).
CREATE TABLE lnurl_channel_keys (
  k1          TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL REFERENCES users(id),
  created_at  INTEGER NOT NULL,
  used_at     INTEGER,
  remote_id   TEXT
);

-- Human-readable Lightning address names (SetLightningAddress); one name per wallet.
CREATE TABLE lightning_addresses (
  name        TEXT PRIMARY KEY,                  -- [a-z0-9._-]{1,64}
  user_id     TEXT NOT NULL UNIQUE REFERENCES users(id),
  created_at  INTEGER NOT NULL
);

-- Kind-9735 receipts published for paid zap invoices.
CREATE TABLE zap_receipts (
  payment_hash  TEXT PRIMARY KEY,
  event_id      TEXT NOT NULL,
  published_at  INTEGER NOT NULL
);
