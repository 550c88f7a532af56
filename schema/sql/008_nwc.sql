-- Nostr Wallet Connect (NIP-47, src/nwc/). Times are unix ms unless the column says seconds; amounts INTEGER msat.

-- One connection per NWC app a user links. The service key is ours (one per connection, as NIP-47 advises); of the
-- client only the public key is kept: the secret went out once in the connection URI.
CREATE TABLE nwc_connections (
  id                   TEXT PRIMARY KEY,                 -- 32 hex
  user_id              TEXT NOT NULL REFERENCES users(id),
  name                 TEXT NOT NULL,
  service_pubkey       TEXT NOT NULL UNIQUE,
  service_secret       TEXT NOT NULL,                    -- hex; signs and decrypts for this connection only
  client_pubkey        TEXT NOT NULL,
  methods              TEXT NOT NULL,                    -- space-separated NIP-47 method names
  budget_msat          INTEGER CHECK (budget_msat > 0),
  budget_interval      TEXT CHECK (budget_interval IN ('DAY', 'WEEK', 'MONTH')),
  expires_at           INTEGER,                          -- NULL: never
  created_at           INTEGER NOT NULL,
  revoked_at           INTEGER,
  CHECK ((budget_msat IS NULL) = (budget_interval IS NULL))
);
CREATE INDEX nwc_connections_user ON nwc_connections(user_id, created_at);

-- What each payment through a connection takes from its budget. A row is inserted as `reserved` (the invoice
-- amount) in its own transaction before the wallet pays, becomes `spent` (amount + fees) when the wallet took the
-- money, and `released` when it did not. Reserved and spent rows count against the budget.
CREATE TABLE nwc_spends (
  serial          INTEGER PRIMARY KEY AUTOINCREMENT,
  connection_id   TEXT NOT NULL REFERENCES nwc_connections(id),
  request_id      TEXT NOT NULL UNIQUE,                  -- the kind-23194 event id
  payment_hash    TEXT NOT NULL,
  amount_msat     INTEGER NOT NULL CHECK (amount_msat > 0),
  status          TEXT NOT NULL CHECK (status IN ('reserved', 'spent', 'released')),
  created_at      INTEGER NOT NULL
);
CREATE INDEX nwc_spends_window ON nwc_spends(connection_id, created_at);

-- Exactly-once for NWC requests, as nostr_requests is for kind 21000: a request is claimed before it runs and its
-- encrypted response is stored after, so a redelivered event runs nothing and gets the same answer again.
CREATE TABLE nwc_requests (
  event_id        TEXT PRIMARY KEY,
  connection_id   TEXT NOT NULL REFERENCES nwc_connections(id),
  requester       TEXT NOT NULL,
  created_at      INTEGER NOT NULL,                      -- the event's created_at, unix seconds
  received_at     INTEGER NOT NULL,
  reply           TEXT                                   -- JSON {sentAt, content}; NULL while running
);
CREATE INDEX nwc_requests_created ON nwc_requests(created_at);
